import type { Test } from 'supertest';
import { createWorkspace, TestWorkspace } from './factories';
import { OpenApiValidator } from './openapi';
import { createTestApp, TestApp, v1Headers } from './test-app';

export interface ApiSuite {
  t: TestApp;
  openapi: OpenApiValidator;
  /** The suite's workspace, whose key `post` and `get` use by default. */
  ws: TestWorkspace;
  /** A second workspace, for isolation checks. */
  other: TestWorkspace;
  post(path: string, body: unknown, key?: string): Test;
  get(path: string, key?: string): Test;
}

/**
 * The usual e2e suite set-up: the production app on the test database, its OpenAPI validator
 * and two workspaces, created before the suite's tests and closed after them.
 */
export function apiSuite(options: Parameters<typeof createTestApp>[0] = {}): ApiSuite {
  const suite = {
    post: (path: string, body: unknown, key?: string) =>
      suite.t.http
        .post(path)
        .set(v1Headers(key ?? suite.ws.key))
        .send(body as object),
    get: (path: string, key?: string) => suite.t.http.get(path).set(v1Headers(key ?? suite.ws.key)),
  } as ApiSuite;
  beforeAll(async () => {
    suite.t = await createTestApp(options);
    suite.openapi = new OpenApiValidator(suite.t.document);
    suite.ws = await createWorkspace(suite.t.http);
    suite.other = await createWorkspace(suite.t.http);
  });
  afterAll(() => suite.t.close());
  return suite;
}

export interface TwoInstances {
  /** Two apps on the one test database, as two stateless instances behind a load balancer. */
  apps: [TestApp, TestApp];
  /** A workspace both serve. */
  ws: TestWorkspace;
}

/** Two instances of the app and a workspace, made before the suite's tests and closed after them: for races between instances. */
export function twoInstances(): TwoInstances {
  const pair = {} as TwoInstances;
  beforeAll(async () => {
    pair.apps = [await createTestApp(), await createTestApp()];
    pair.ws = await createWorkspace(pair.apps[0].http);
  });
  afterAll(async () => {
    await Promise.all(pair.apps.map((app) => app.close()));
  });
  return pair;
}
