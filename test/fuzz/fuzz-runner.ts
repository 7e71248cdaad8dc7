import fc from 'fast-check';
import type { FuzzWorld } from './fuzz-world';
import { abbreviate } from './json-text';
import type { RawResponse } from './raw-http';
import type { FuzzRequest } from './request-arbitrary';
import type { Problem } from './response-checks';

/**
 * How much to fuzz, from the environment:
 * - `FUZZ_BUDGET` `ci` (default, what `npm test` runs) or `large` (what `npm run test:fuzz` runs);
 * - `FUZZ_SEED` the seed (ci: fixed; large: a new one each run, printed);
 * - `FUZZ_RUNS` requests (ci: 500; large: until the time is up);
 * - `FUZZ_SECONDS` time for the requests (large: 300);
 * - `FUZZ_PATH` replays one request of a seed (as a report prints it) and shrinks it;
 * - `FUZZ_REQUEST_MS` the time bound of one request (2000);
 * - `FUZZ_SHRINK_SECONDS` time to shrink a failure (ci: 30 for the first one; large: 10 per class).
 * `ci` stops at the first failure; `large` goes on, and reports every distinct class of failure.
 */
export interface FuzzBudget {
  name: 'ci' | 'large';
  seed: number;
  numRuns: number;
  seconds?: number;
  path?: string;
  requestBoundMs: number;
  shrinkSeconds: number;
  /** Record every class of failure and go on, instead of stopping at the first. */
  survey: boolean;
}

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name}=${raw} is not a number`);
  return value;
}

export const CI_SEED = 20260301;

export function budgetFromEnv(env: NodeJS.ProcessEnv = process.env): FuzzBudget {
  const large = env.FUZZ_BUDGET === 'large';
  if (env.FUZZ_BUDGET !== undefined && !['ci', 'large'].includes(env.FUZZ_BUDGET))
    throw new Error(`FUZZ_BUDGET=${env.FUZZ_BUDGET}: ci or large`);
  const path = env.FUZZ_PATH || undefined;
  return {
    name: large ? 'large' : 'ci',
    seed: numberFrom(env, 'FUZZ_SEED', large ? Math.floor(Math.random() * 2 ** 31) : CI_SEED),
    numRuns: numberFrom(env, 'FUZZ_RUNS', large ? 10_000_000 : 500),
    seconds: (env.FUZZ_SECONDS ?? '') !== '' || large ? numberFrom(env, 'FUZZ_SECONDS', 300) : undefined,
    path,
    requestBoundMs: numberFrom(env, 'FUZZ_REQUEST_MS', 2000),
    shrinkSeconds: numberFrom(env, 'FUZZ_SHRINK_SECONDS', large ? 10 : 30),
    survey: large && path === undefined,
  };
}

/** The longest the fuzz test may take with `budget`, for the test runner's timeout. */
export function budgetTimeoutMs(budget: FuzzBudget): number {
  const exploring = budget.seconds !== undefined ? budget.seconds * 1000 : budget.numRuns * 300;
  const shrinking = budget.survey ? 40 * budget.shrinkSeconds * 1000 : budget.shrinkSeconds * 1000;
  return exploring + shrinking + 60_000;
}

export interface Exchange {
  request: FuzzRequest;
  response: RawResponse;
  problems: Problem[];
}

export interface FailureClass {
  key: string;
  count: number;
  /** Operations where it happened. */
  routes: Set<string>;
  /** Run index of the smallest example seen: `FUZZ_PATH` replays it. */
  path: string;
  example: Exchange;
  shrunk?: Exchange;
  /** `FUZZ_PATH` of the shrunk request. */
  shrunkPath?: string;
}

export interface FuzzOutcome {
  seed: number;
  requests: number;
  failures: FailureClass[];
}

class RequestFailed extends Error {
  constructor(readonly exchange: Exchange) {
    super(exchange.problems.map((problem) => `${problem.kind}: ${problem.detail}`).join('\n'));
  }
}

function routeOf(request: FuzzRequest): string {
  return `${request.method} ${request.route}`;
}

/**
 * One class per kind of problem and cause, whatever the route (the report lists the routes): a
 * wrong error body by what is wrong with it; a 5xx by the error the service logged and the
 * function of ours it came from (numbers, which vary between instances of one cause, left out);
 * a slow, unanswered or leaking request by its operation.
 */
function classKey(exchange: Exchange, problem: Problem): string {
  switch (problem.kind) {
    case 'error-body':
      return `${problem.kind} | ${problem.detail}`;
    case 'server-error': {
      const error = problem.serverError;
      const cause = error
        ? `${error.cause.replace(/\d+/g, 'N').slice(0, 160)}${error.function ? ` in ${error.function}` : ''}`
        : problem.detail;
      return `${problem.kind} | ${exchange.response.status} | ${cause}`;
    }
    case 'no-answer':
      return `${problem.kind} | ${routeOf(exchange.request)} | ${exchange.response.failure ?? ''}`;
    default:
      return `${problem.kind} | ${routeOf(exchange.request)}`;
  }
}

/**
 * Runs the property "every answer keeps the contract" over generated requests, within `budget`.
 * A failure is replayed from its path and shrunk, so that the report shows a small request.
 */
export async function fuzz(
  arbitrary: fc.Arbitrary<FuzzRequest>,
  send: (request: FuzzRequest) => Promise<Exchange>,
  budget: FuzzBudget,
): Promise<FuzzOutcome> {
  const failing = (accept: (exchange: Exchange) => boolean = () => true) =>
    fc.asyncProperty(arbitrary, async (request) => {
      const exchange = await send(request);
      if (exchange.problems.length > 0 && accept(exchange)) throw new RequestFailed(exchange);
    });
  const timeLimit = (seconds: number | undefined) =>
    seconds === undefined ? [] : [fc.interruptAfterTimeLimit(seconds * 1000)];
  const shrink = async (
    path: string,
    example: Exchange,
    accept: (exchange: Exchange) => boolean,
  ): Promise<Pick<FailureClass, 'shrunk' | 'shrunkPath'>> => {
    // Time enough to replay the example itself (a slow one is sent twice), whatever the budget.
    const seconds = Math.max(budget.shrinkSeconds, (4 * example.response.elapsedMs) / 1000 + 1);
    const details = await fc.check(failing(accept), { seed: budget.seed, path, plugins: timeLimit(seconds) });
    if (!details.failed || !(details.errorInstance instanceof RequestFailed)) return {};
    return { shrunk: details.errorInstance.exchange, shrunkPath: details.counterexamplePath ?? undefined };
  };
  const sameClass = (key: string) => (exchange: Exchange) =>
    exchange.problems.some((problem) => classKey(exchange, problem) === key);

  if (!budget.survey) {
    const details = await fc.check(failing(), {
      seed: budget.seed,
      numRuns: budget.numRuns,
      path: budget.path,
      endOnFailure: true,
      plugins: timeLimit(budget.seconds),
    });
    if (!details.failed || !(details.errorInstance instanceof RequestFailed)) {
      if (details.failed)
        throw details.errorInstance instanceof Error
          ? details.errorInstance
          : new Error('fuzz: the property failed without an exchange');
      return { seed: budget.seed, requests: details.numRuns, failures: [] };
    }
    const example = details.errorInstance.exchange;
    const path = details.counterexamplePath ?? '0';
    const key = classKey(example, example.problems[0]);
    const shrunk = await shrink(path, example, sameClass(key));
    return {
      seed: budget.seed,
      requests: details.numRuns,
      failures: [{ key, count: 1, routes: new Set([routeOf(example.request)]), path, example, ...shrunk }],
    };
  }

  const classes = new Map<string, FailureClass>();
  let requests = 0;
  const surveying = fc.asyncProperty(arbitrary, async (request) => {
    const path = String(requests++);
    const exchange = await send(request);
    for (const problem of exchange.problems) {
      const key = classKey(exchange, problem);
      const known = classes.get(key);
      if (!known) classes.set(key, { key, count: 1, routes: new Set([routeOf(request)]), path, example: exchange });
      else {
        known.count += 1;
        known.routes.add(routeOf(request));
        if (describeRequest(exchange.request).length < describeRequest(known.example.request).length)
          Object.assign(known, { path, example: exchange });
      }
    }
  });
  await fc.check(surveying, { seed: budget.seed, numRuns: budget.numRuns, plugins: timeLimit(budget.seconds) });
  const failures = [...classes.values()].sort((a, b) => a.key.localeCompare(b.key));
  for (const failure of failures) {
    Object.assign(failure, await shrink(failure.path, failure.example, sameClass(failure.key)));
  }
  return { seed: budget.seed, requests, failures };
}

/** A request as a reader can replay it, credentials named instead of shown. */
export function describeRequest(request: FuzzRequest, world?: FuzzWorld): string {
  const secrets: [string, string][] = world
    ? [
        [world.A.limitedKey, '<key of workspace A, scope notes:read>'],
        [world.A.workspace.key, '<key of workspace A>'],
        [world.B.workspace.key, '<key of workspace B>'],
        [world.adminToken, '<admin token>'],
      ]
    : [];
  const named = (value: string) => secrets.reduce((text, [secret, name]) => text.split(secret).join(name), value);
  const lines = [
    `${request.method} ${abbreviate(request.target, 600)}   [${request.caller}; operation ${request.route}]`,
  ];
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`  ${name}: ${abbreviate(named(value), 300)}`);
  if (request.body !== undefined) {
    const bytes = Buffer.byteLength(request.body.text, request.body.encoding);
    const shown = request.body.encoding === 'latin1' ? JSON.stringify(request.body.text) : request.body.text;
    lines.push(
      `  body (${bytes} bytes${request.body.encoding === 'latin1' ? ', as Latin-1 bytes' : ''}): ${abbreviate(shown, 2000)}`,
    );
  }
  return lines.join('\n');
}

function describeExchange(exchange: Exchange, world: FuzzWorld): string {
  const { response } = exchange;
  const answer = response.failure
    ? `no answer: ${response.failure}`
    : `${response.status} in ${Math.round(response.elapsedMs)} ms: ${abbreviate(response.text, 500)}`;
  return [
    describeRequest(exchange.request, world),
    `  → ${answer}`,
    ...exchange.problems.map((problem) => `  ✗ ${problem.kind}: ${problem.detail}`),
  ].join('\n');
}

/** The report of a failed run: each class of failure, how to replay it, and its smallest request. */
export function describeOutcome(outcome: FuzzOutcome, budget: FuzzBudget, world: FuzzWorld): string {
  const command = budget.name === 'large' ? 'npm run test:fuzz' : 'npx jest test/fuzz';
  const parts = [
    `The fuzz test found ${outcome.failures.length} class(es) of failure in ${outcome.requests} requests (FUZZ_SEED=${outcome.seed}, budget ${budget.name}).`,
  ];
  outcome.failures.forEach((failure, index) => {
    parts.push(
      [
        `${index + 1}. ${failure.key}  (${failure.count} request${failure.count === 1 ? '' : 's'})`,
        failure.routes.size > 1 ? `   on ${[...failure.routes].sort().join(', ')}` : '',
        `   replay and shrink: FUZZ_SEED=${outcome.seed} FUZZ_PATH=${failure.path} ${command}`,
        failure.shrunkPath
          ? `   replay the shrunk request: FUZZ_SEED=${outcome.seed} FUZZ_PATH=${failure.shrunkPath} ${command}`
          : '',
        failure.shrunk
          ? `   shrunk:\n${indent(describeExchange(failure.shrunk, world))}`
          : `   (did not fail again when replayed: it depends on earlier requests)`,
        failure.shrunk ? '' : `   as first seen:\n${indent(describeExchange(failure.example, world))}`,
      ]
        .filter(Boolean)
        .join('\n'),
    );
  });
  return parts.join('\n\n');
}

function indent(text: string): string {
  return text.replace(/^/gm, '     ');
}
