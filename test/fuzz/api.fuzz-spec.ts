import type { AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { createIsolatedTestApp } from '../support/scratch-database';
import type { TestApp } from '../support/test-app';
import { budgetFromEnv, budgetTimeoutMs, describeOutcome, Exchange, fuzz } from './fuzz-runner';
import { FuzzWorld, seedWorld } from './fuzz-world';
import { operationsOf } from './openapi-operations';
import { sendRaw } from './raw-http';
import { FuzzRequest, RequestArbitraries } from './request-arbitrary';
import { responseProblems } from './response-checks';
import { ServerLog } from './server-log';
import { changedTables, workspaceFingerprint } from './workspace-rows';

/** Longest wait for an answer before the request counts as unanswered (the contract's bound is budget.requestBoundMs). */
const NO_ANSWER_MS = 30_000;

/**
 * Property-based requests built from the served OpenAPI document: every operation, with path ids
 * of both workspaces and malformed ones, paging and filter parameters valid and not, odd headers,
 * and bodies that follow the documented schema then get mutated (types swapped, nulls, members
 * removed or added under prototype names, huge strings, lone surrogates, deep nesting, edge
 * numbers). Whatever is asked, every answer must come in time, never be a 5xx, carry the public
 * error body on a 4xx, and hold nothing of the other workspace. Prototype-key probes (documented
 * example bodies with a key named like a member of Object.prototype at one place) must be refused
 * with 400 and change nothing; every place of every body is probed on each run, and probes are
 * among the generated requests too. See fuzz-runner.ts for budgets.
 */
describe('fuzz: requests generated from the OpenAPI document', () => {
  const budget = budgetFromEnv();
  let t: TestApp;
  let world: FuzzWorld;
  let baseUrl: URL;
  let serverLog: ServerLog;

  /** Sends one request and checks its answer; for a probe, also what it changed of workspace P. */
  async function exchange(request: FuzzRequest, boundMs: number): Promise<Exchange> {
    const rowsOfP = () => workspaceFingerprint(t.app.get(DataSource), world.P.workspace.workspaceId);
    const before = request.probe ? await rowsOfP() : undefined;
    serverLog.takeError();
    const response = await sendRaw(baseUrl, request, NO_ANSWER_MS);
    const serverError = serverLog.takeError();
    const changed = before ? changedTables(before, await rowsOfP()) : [];
    if (response.elapsedMs > boundMs && !response.failure) {
      // Once more before calling it slow: a pause of the shared machine is not the service's cost.
      const again = await sendRaw(baseUrl, request, NO_ANSWER_MS);
      serverLog.takeError();
      response.elapsedMs = Math.min(response.elapsedMs, again.elapsedMs);
    }
    return { request, response, problems: responseProblems(request, response, world, boundMs, serverError, changed) };
  }

  beforeAll(async () => {
    serverLog = new ServerLog();
    // Its requests can enable the seeded webhooks and cause deliveries: on a database of its own (see createIsolatedTestApp).
    t = await createIsolatedTestApp('records_fuzz', { env: { LOG_LEVEL: 'error' } });
    await t.app.listen(0, '127.0.0.1');
    baseUrl = new URL(`http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`);
    world = await seedWorld(t.http);
  });
  afterAll(async () => {
    await t?.close();
    serverLog?.restore();
  });

  it(
    `keeps the contract for every generated request (budget ${budget.name})`,
    async () => {
      const operations = operationsOf(t.document);
      expect(operations.length).toBeGreaterThan(50);
      const requests = new RequestArbitraries(t.document, world).requests(operations);
      if (budget.name === 'large') process.stderr.write(`fuzz: FUZZ_SEED=${budget.seed}, ${budget.seconds} s\n`);
      const outcome = await fuzz(requests, (request) => exchange(request, budget.requestBoundMs), budget);
      if (budget.name === 'large')
        process.stderr.write(`fuzz: ${outcome.requests} requests, ${outcome.failures.length} class(es) of failure\n`);
      if (outcome.failures.length > 0) throw new Error(describeOutcome(outcome, budget, world));
      expect(outcome.requests).toBeGreaterThan(0);
    },
    budgetTimeoutMs(budget),
  );

  it('refuses a prototype-named key at every place of every documented body with 400, changing nothing', async () => {
    const probes = new RequestArbitraries(t.document, world).everyProbe(operationsOf(t.document));
    const routes = new Set(probes.map((probe) => `${probe.method} ${probe.route}`));
    const bodies = operationsOf(t.document).filter((operation) => operation.bodySchema);
    expect([...routes].sort()).toEqual(bodies.map((operation) => `${operation.method} ${operation.route}`).sort());
    const failures: string[] = [];
    for (const probe of probes) {
      const { response, problems } = await exchange(probe, budget.requestBoundMs);
      if (problems.length > 0) {
        const found = problems.map((problem) => `${problem.kind}: ${problem.detail}`).join('; ');
        failures.push(
          `${probe.method} ${probe.target} ${probe.body?.text}\n  → ${response.status} ${response.text.slice(0, 300)}\n  ${found}`,
        );
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
