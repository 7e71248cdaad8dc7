import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { SCOPES } from '../../src/common/auth/scopes';
import { createTestApp, runDatabasePooling, testDatabaseUrl, TestApp, v1Headers } from '../support/test-app';

const ROOT = path.resolve(__dirname, '..', '..');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operator CLI as an operator runs it (README: `node dist/src/cli/main.js …` in the container),
 * a Node process of its own on the test database: it builds the application without an HTTP server,
 * which is what a provider reaching for one broke once.
 */
// Each test starts the CLI, a Node process that compiles the TypeScript it runs, several times.
jest.setTimeout(120_000);

describe('operator CLI', () => {
  let t: TestApp;
  let dataDir: string;

  /** The CLI on the test database, or without DATABASE_URL on `noDatabaseIn` (where it would make an embedded one). */
  const cli = async (args: string[], { noDatabaseIn }: { noDatabaseIn?: string } = {}): Promise<CliRun> => {
    const env = {
      PATH: process.env.PATH,
      DATA_DIR: noDatabaseIn ?? dataDir,
      // As an operator would behind a pooler: its URL, and PostgreSQL's for the CLI's migrations and locks.
      ...(!noDatabaseIn && { DATABASE_URL: testDatabaseUrl(), ...runDatabasePooling() }),
    };
    try {
      const { stdout, stderr } = await promisify(execFile)(
        process.execPath,
        ['-r', path.join(ROOT, 'test', 'support', 'register-ts.js'), path.join(ROOT, 'src', 'cli', 'main.ts'), ...args],
        { cwd: ROOT, env, timeout: 60_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
      return { code, stdout, stderr };
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'records-cli-'));
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('bootstraps a workspace whose key works, makes a custom type in it, and revokes the key', async () => {
    const boot = await cli(['bootstrap', '--email', 'operator@example.com', '--name', 'CLI workspace']);
    expect(boot).toMatchObject({ code: 0, stderr: '' });
    const made = JSON.parse(boot.stdout) as { workspaceId: string; memberId: string; apiKeyId: string; apiKey: string };
    expect(made).toEqual({
      workspaceId: expect.stringMatching(/^wks_/),
      memberId: expect.stringMatching(/^mem_/),
      apiKeyId: expect.stringMatching(/^key_/),
      apiKey: expect.stringMatching(/^sk_/),
    });
    const validated = await t.http.get('/v1/auth/validate').set(v1Headers(made.apiKey));
    expect(validated.status).toBe(200);
    expect(validated.body.scopes).toEqual([...SCOPES]);

    const typeFile = path.join(ROOT, 'examples', 'object-type.json');
    const type = await cli(['object-type:create', '--workspace', made.workspaceId, '--file', typeFile]);
    expect(type).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(type.stdout)).toMatchObject({ objectType: 'project' });
    const projects = await t.http.get('/v1/objects/project').set(v1Headers(made.apiKey));
    expect(projects.status).toBe(200);
    expect(projects.body.totalCount).toBe(0);

    const revoked = await cli(['key:revoke', '--key', made.apiKeyId]);
    expect(revoked.code).toBe(0);
    expect((await t.http.get('/v1/auth/validate').set(v1Headers(made.apiKey))).status).toBe(401);
  });

  it.each([['help'], ['--help']])('prints its commands for %s, on standard output', async (asked) => {
    const run = await cli([asked], { noDatabaseIn: dataDir });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^usage: [\s\S]*bootstrap[\s\S]*object-type:create/);
  });

  it('refuses bad input with exit code 1 and says why, before starting any database', async () => {
    const untouched = path.join(dataDir, 'untouched');
    mkdirSync(untouched);
    const refused = async (args: string[]) => {
      const run = await cli(args, { noDatabaseIn: untouched });
      expect(run).toMatchObject({ code: 1, stdout: '' });
      return run.stderr;
    };
    expect(await refused(['bootstrap'])).toMatch(/^--email is required\nusage: /);
    expect(await refused(['workspace:delete'])).toMatch(/^usage: /);
    const workspace = ['--workspace', 'wks_01JD6Y3Z8Q0N5V4W7X2C9B1A3E'];
    expect(
      JSON.parse(await refused(['member:create', ...workspace, '--email', 'x@example.com', '--role', 'owner'])),
    ).toMatchObject({
      error: { code: 'invalid_type', message: 'options.role must be one of admin, member', param: 'options.role' },
    });
    expect(await refused(['object-type:create', ...workspace, '--file', path.join(dataDir, 'missing.json')])).toMatch(
      /^--file .*missing\.json: ENOENT/,
    );
    // Had any of them got as far as a database, an embedded PostgreSQL would be in DATA_DIR.
    expect(readdirSync(untouched)).toEqual([]);
  });
});
