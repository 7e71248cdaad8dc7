import { servedOpenApiDocument } from '../../../src/cli/openapi-document';
import { freePort } from '../../../test/support/byte-http';
import { createKey, createWorkspace, TestWorkspace } from '../../../test/support/factories';
import { createTestApp, TEST_ADMIN_TOKEN, TestApp } from '../../../test/support/test-app';
import { createRecordsClient, RecordsApiError, type RecordsClient, type RecordsClientOptions } from '../src';

/** The app on a real port (upload URLs are absolute), and a client on it. */
async function startService(env: Record<string, string> = {}): Promise<{ t: TestApp; baseUrl: string }> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ env: { PUBLIC_URL: baseUrl, FILE_SWEEP_INTERVAL_SECONDS: '0', ...env } });
  await t.app.listen(port, '127.0.0.1');
  return { t, baseUrl };
}

/** What a call threw, which must be the service's error: the test reads its fields. */
async function apiError(call: Promise<unknown>): Promise<RecordsApiError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof RecordsApiError)) throw new Error(`expected a RecordsApiError, got ${String(error)}`);
  return error;
}

describe('TypeScript client against the service', () => {
  let t: TestApp;
  let baseUrl: string;
  let ws: TestWorkspace;
  let api: RecordsClient;
  const client = (options: Partial<RecordsClientOptions> = {}) =>
    createRecordsClient({ baseUrl, apiKey: ws.key, ...options });

  beforeAll(async () => {
    ({ t, baseUrl } = await startService());
    ws = await createWorkspace(t.http);
    api = client();
  });
  afterAll(() => t.close());

  it('is generated from the document the service serves (built without a database, PUBLIC_URL aside)', async () => {
    const { servers: _generated, ...generated } = await servedOpenApiDocument();
    const { servers: _served, ...served } = (await t.http.get('/docs-json').expect(200)).body as typeof t.document;
    expect(generated).toEqual(served);
  });

  it('does the first five minutes of the README', async () => {
    const note = await api.post('/v1/notes', {
      body: { fields: { $title: 'Kick-off', $content: 'Scope and budget' } },
    });
    expect(note.fields.$title).toEqual({ value: 'Kick-off', valueType: 'TEXT' });

    const newest = await api.get('/v1/notes', { params: { query: { limit: 5 } } });
    expect(newest.data.map((entry) => entry.id)).toContain(note.id);
    expect(newest.totalCount).toBeGreaterThanOrEqual(1);

    const kickOffs = await api.get('/v1/notes', { params: { query: { filters: { '$title[startsWith]': 'Kick' } } } });
    expect(kickOffs.data.map((entry) => entry.id)).toEqual([note.id]);

    const account = await api.post('/v1/accounts', { body: { fields: { $name: 'Acme' } } });
    const call = await api.post('/v1/notes', {
      body: { fields: { $title: 'Call with Acme' }, relationships: { $account: [account.id] } },
    });
    const ofAcme = await api.get('/v1/notes', { params: { query: { filters: { $account: account.id } } } });
    expect(ofAcme.data.map((entry) => entry.id)).toEqual([call.id]);

    const updated = await api.post('/v1/notes/{id}', {
      params: { path: { id: note.id } },
      body: { fields: { $content: 'Scope, budget and dates' } },
    });
    expect(updated.fields.$content?.value).toBe('Scope, budget and dates');
    const read = await api.get('/v1/notes/{id}', { params: { path: { id: note.id } } });
    expect(read).toEqual(updated);
  });

  it('creates a custom object type as the operator, then creates, updates and lists its records', async () => {
    const operator = createRecordsClient({ baseUrl, apiKey: TEST_ADMIN_TOKEN });
    await operator.post('/admin/v1/workspaces/{workspaceId}/object-types', {
      params: { path: { workspaceId: ws.workspaceId } },
      body: {
        slug: 'project',
        label: 'Project',
        fields: {
          name: { label: 'Name', valueType: 'TEXT', required: true },
          status: {
            label: 'Status',
            valueType: 'SINGLE_SELECT',
            typeConfiguration: {
              options: [
                { id: 'opt_planned', label: 'Planned' },
                { id: 'opt_done', label: 'Done' },
              ],
            },
          },
          code: { label: 'Project code', valueType: 'TEXT', unique: true },
        },
        relationships: { client: { label: 'Client', cardinality: 'HAS_ONE', objectType: 'account' } },
      },
    });
    const project = { params: { path: { entitySlug: 'project' } } };
    const definitions = await api.get('/v1/objects/{entitySlug}/definitions', project);
    expect(Object.keys(definitions.fieldDefinitions)).toEqual(expect.arrayContaining(['name', 'status', 'code']));

    const acme = await api.post('/v1/accounts', { body: { fields: { $name: 'Acme for projects' } } });
    const website = await api.post('/v1/objects/{entitySlug}/values', {
      ...project,
      body: { fields: { name: 'Website', status: 'Planned', code: 'WEB' }, relationships: { client: acme.id } },
    });
    expect(website.relationships.client?.values).toEqual([acme.id]);
    await api.post('/v1/objects/{entitySlug}/values', {
      ...project,
      body: { fields: { name: 'Intranet', status: 'Done' } },
    });

    const done = await api.post('/v1/objects/{entitySlug}/values/{id}', {
      params: { path: { entitySlug: 'project', id: website.id } },
      body: { fields: { status: 'opt_done' } },
    });
    expect(done.fields.status?.value).toBe('opt_done');
    const finished = await api.get('/v1/objects/{entitySlug}', {
      params: { path: { entitySlug: 'project' }, query: { filters: { status: 'Done' } } },
    });
    expect(finished.data.map((entry) => entry.fields.name?.value).sort()).toEqual(['Intranet', 'Website']);
  });

  it('uploads a file in two steps: create, PUT the bytes to its URL, complete', async () => {
    const bytes = 'WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n';
    const file = await api.post('/v1/files', {
      body: {
        filename: 'hello.vtt',
        mimeType: 'text/vtt',
        sizeBytes: Buffer.byteLength(bytes),
        purpose: 'meeting_transcript',
      },
    });
    // The signed URL is the authorisation: no API key goes there, so plain fetch rather than the client.
    const upload = await fetch(file.uploadUrl, { method: 'PUT', headers: file.uploadHeaders, body: bytes });
    expect(upload.status).toBe(200);
    const completed = await api.post('/v1/files/{id}/complete', { params: { path: { id: file.id } }, body: {} });
    expect(completed.status).toBe('COMPLETED');

    const { url } = await api.get('/v1/files/{id}/url', { params: { path: { id: file.id } } });
    expect(await (await fetch(url)).text()).toBe(bytes);
  });

  it('follows every page of a filtered list by cursor', async () => {
    const prefix = `Paged ${Date.now()}`;
    const created: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const task = await api.post('/v1/tasks', {
        body: { fields: { $title: `${prefix} ${n}`, $status: 'TODO' }, relationships: { $assignedTo: ws.memberId } },
      });
      created.push(task.id);
    }

    const pages = [];
    for await (const page of api.pages('/v1/tasks', {
      params: { query: { limit: 2, filters: { '$title[startsWith]': prefix } } },
    })) {
      pages.push(page.data.map((task) => task.id));
    }
    expect(pages).toEqual([created.slice(3).reverse(), created.slice(1, 3).reverse(), created.slice(0, 1)]);
  });

  it('follows every page of a search, its required q beside each cursor', async () => {
    const word = `Jacana${Date.now()}`;
    const created: string[] = [];
    for (const n of [1, 2, 3])
      created.push((await api.post('/v1/notes', { body: { fields: { $title: `${word} ${n}` } } })).id);
    const found: string[] = [];
    for await (const page of api.pages('/v1/search', { params: { query: { q: word.toLowerCase(), limit: 1 } } })) {
      expect(page.data.length).toBeLessThanOrEqual(1);
      found.push(...page.data.map((result) => result.entityId));
    }
    expect(found.sort()).toEqual(created.sort());
  });

  it('follows the change feed by long polls: each write’s event soon after its commit, until the signal aborts', async () => {
    let cursor: string | undefined;
    for await (const page of api.pages('/v1/events', { params: { query: { limit: 100 } } })) cursor = page.nextCursor;
    const stop = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const page of api.follow({ cursor, wait: 10, signal: stop.signal })) {
        seen.push(...page.data.map((event) => event.entityId));
        cursor = page.nextCursor;
        if (seen.length === 2) stop.abort();
      }
    })();
    const started = Date.now();
    const first = await api.post('/v1/notes', { body: { fields: { $title: 'Followed 1' } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await api.post('/v1/notes', { body: { fields: { $title: 'Followed 2' } } });
    await following;
    expect(seen).toEqual([first.id, second.id]);
    // Each read waited for its event: nowhere near the 10 s a read may wait.
    expect(Date.now() - started).toBeLessThan(5000);
    // Where it stopped is where a later follow goes on from: nothing there yet.
    const rest = await api.get('/v1/events', { params: { query: { cursor: cursor! } } });
    expect(rest.data).toEqual([]);
  });

  it('throws cursor_expired with the resyncCursor to follow from when the cursor is older than the retention', async () => {
    // A cursor of this feed, read as if 31 days ago (the default retention is 30): [workspace, position, types, limit, read at].
    const [workspace, position, types, limit] = JSON.parse(
      Buffer.from(
        (await api.get('/v1/events', { params: { query: { limit: 1 } } })).nextCursor,
        'base64url',
      ).toString(),
    );
    const cursor = Buffer.from(
      JSON.stringify([workspace, position, types, limit, Date.now() - 31 * 86_400_000]),
    ).toString('base64url');
    const error = await apiError(api.follow({ cursor, wait: 1 }).next());
    expect([error.status, error.code, error.param]).toEqual([410, 'cursor_expired', 'cursor']);
    const resumed = await api.get('/v1/events', { params: { query: { cursor: error.resyncCursor! } } });
    expect(resumed.data).toEqual([]);
  });

  it('sends an Idempotency-Key of its own on each write, and the caller’s when given (a repeat is replayed)', async () => {
    const body = { fields: { $title: 'Once' } };
    const first = await api.post('/v1/notes', { body });
    const second = await api.post('/v1/notes', { body });
    expect(second.id).not.toBe(first.id);

    const header = { 'Idempotency-Key': `once-${Date.now()}` };
    const original = await api.raw.POST('/v1/notes', { params: { header }, body });
    const repeat = await api.raw.POST('/v1/notes', { params: { header }, body });
    expect(repeat.data?.id).toBe(original.data?.id);
    expect(repeat.response.headers.get('idempotent-replayed')).toBe('true');
  });

  it('gives each answer’s ETag, sends it as ifMatch (412 once another wrote), and reads a record only if it changed', async () => {
    const note = await api.post('/v1/notes', { body: { fields: { $title: 'Tagged' } } });
    const etag = api.etagOf(note)!;
    expect(etag).toBe('"v1"');
    const path = { params: { path: { id: note.id } } };
    expect(await api.getIfChanged('/v1/notes/{id}', etag, path)).toBeUndefined();
    const mine = await api.post('/v1/notes/{id}', { ...path, ifMatch: etag, body: { fields: { $title: 'Mine' } } });
    expect(api.etagOf(mine)).toBe('"v2"');
    const theirs = await apiError(
      api.post('/v1/notes/{id}', { ...path, ifMatch: etag, body: { fields: { $title: 'Theirs' } } }),
    );
    expect([theirs.status, theirs.code]).toEqual([412, 'precondition_failed']);
    const changed = await api.getIfChanged('/v1/notes/{id}', etag, path);
    expect(changed?.fields.$title?.value).toBe('Mine');
    expect(api.etagOf(changed!)).toBe('"v2"');
    const upsert = { matchOn: 'externalId', externalId: `client-${note.id}`, fields: { $title: 'Once' } } as const;
    expect((await api.post('/v1/notes/upsert', { ifNoneMatch: '*', body: upsert })).outcome).toBe('created');
    expect((await apiError(api.post('/v1/notes/upsert', { ifNoneMatch: '*', body: upsert }))).status).toBe(412);
  });

  it('throws each error of the catalogue as a RecordsApiError with its status, type, code, message and param', async () => {
    const invalid = await apiError(api.get('/v1/notes', { params: { query: { limit: 26 } } }));
    expect(invalid).toMatchObject({ status: 400, type: 'bad_request', code: 'invalid_parameter', param: 'limit' });
    expect(invalid.message).toEqual(expect.any(String));

    const unknownFilter = await apiError(
      api.get('/v1/notes', { params: { query: { filters: { '$colour[equal]': 'red' } } } }),
    );
    expect(unknownFilter).toMatchObject({ status: 400, type: 'bad_request', code: 'unknown_field' });

    const noSuchAccount = await apiError(
      api.post('/v1/notes', {
        body: { fields: { $title: 'Lost' }, relationships: { $account: 'acc_01JD6Y3Z8Q0N5V4W7X2C9B1A3E' } },
      }),
    );
    expect(noSuchAccount).toMatchObject({
      status: 422,
      type: 'unprocessable_content',
      code: 'relationship_entity_missing',
    });

    const unauthorized = await apiError(client({ apiKey: 'sk_not_a_key' }).get('/v1/auth/validate'));
    expect(unauthorized).toMatchObject({ status: 401, type: 'unauthorized', code: 'invalid_api_key' });

    const readOnly = await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read']);
    const forbidden = await apiError(
      client({ apiKey: readOnly.key }).post('/v1/notes', { body: { fields: { $title: 'No' } } }),
    );
    expect(forbidden).toMatchObject({ status: 403, type: 'forbidden', code: 'insufficient_scope' });

    const notFound = await apiError(
      api.get('/v1/notes/{id}', { params: { path: { id: 'note_01JD6Y3Z8Q0N5V4W7X2C9B1A3E' } } }),
    );
    expect(notFound).toMatchObject({ status: 404, type: 'not_found', code: 'not_found' });

    const file = await api.post('/v1/files', { body: { filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1 } });
    await api.post('/v1/files/{id}/cancel', { params: { path: { id: file.id } }, body: {} });
    const conflict = await apiError(api.post('/v1/files/{id}/cancel', { params: { path: { id: file.id } }, body: {} }));
    expect(conflict).toMatchObject({ status: 409, type: 'conflict', code: 'invalid_state' });
  });
});

describe('TypeScript client under a rate limit', () => {
  let t: TestApp;
  let baseUrl: string;
  let ws: TestWorkspace;

  beforeAll(async () => {
    ({ t, baseUrl } = await startService({ RATE_LIMIT_WRITE: '1' }));
    ws = await createWorkspace(t.http);
  });
  afterAll(() => t.close());

  it('waits out the Retry-After of a 429 and sends the write again with the same Idempotency-Key', async () => {
    const attempts: { status: number; key: string | null; sentAt: number; retryAfter: string | null }[] = [];
    const api = createRecordsClient({
      baseUrl,
      apiKey: ws.key,
      fetch: async (request) => {
        const sentAt = Date.now();
        const response = await fetch(request);
        const key = request.headers.get('idempotency-key');
        attempts.push({ status: response.status, key, sentAt, retryAfter: response.headers.get('retry-after') });
        return response;
      },
    });
    // One write a second: of writes sent at once, all but the first of a window are refused.
    const titles = ['First', 'Second', 'Third'];
    const notes = await Promise.all(
      titles.map((title) => api.post('/v1/notes', { body: { fields: { $title: title } } })),
    );
    expect(notes.map((note) => note.fields.$title?.value)).toEqual(titles);

    const refused = attempts.filter((attempt) => attempt.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const refusal of refused) {
      const retry = attempts.find((attempt) => attempt.key === refusal.key && attempt.sentAt > refusal.sentAt);
      expect(retry).toBeDefined();
      expect(retry!.sentAt - refusal.sentAt).toBeGreaterThanOrEqual(Number(refusal.retryAfter) * 1000);
    }
    expect(new Set(attempts.map((attempt) => attempt.key)).size).toBe(titles.length);
  });

  it('gives the 429 to the caller, with its Retry-After, once the retries are spent', async () => {
    const api = createRecordsClient({ baseUrl, apiKey: ws.key, retry: { maxRetries: 0 } });
    // Of two writes at once, the second at least is refused (the first too, while the window before is still blocked).
    const outcomes = await Promise.all(
      [1, 2].map((n) =>
        api.post('/v1/notes', { body: { fields: { $title: `Burst ${n}` } } }).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    const refusals = outcomes.filter((outcome) => outcome !== undefined);
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    for (const refusal of refusals) {
      expect(refusal).toBeInstanceOf(RecordsApiError);
      expect(refusal).toMatchObject({
        status: 429,
        type: 'too_many_requests',
        code: 'rate_limited',
        retryAfterSeconds: expect.any(Number),
      });
    }
  });
});
