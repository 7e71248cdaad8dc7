import { createRecordsClient, RecordsApiError, type RecordsClientOptions } from '../src';

const NOTE = {
  id: 'note_01JD6Y3Z8Q0N5V4W7X2C9B1A3E',
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: null,
  httpLink: null,
  fields: {},
  relationships: {},
};
const UNAVAILABLE = {
  error: { type: 'service_unavailable', code: 'database_unavailable', message: 'The database is unavailable' },
};

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

type Answer = Response | Error | 'hang';

/**
 * A service stand-in that gives the answers in turn (an Error: the connection fails; 'hang': no
 * answer until the request is aborted) and records what it was sent.
 */
function scripted(answers: Answer[], options: Partial<RecordsClientOptions> = {}) {
  const sent: { method: string; idempotencyKey: string | null; url: string; at: number }[] = [];
  const fetch = async (request: Request) => {
    sent.push({
      method: request.method,
      idempotencyKey: request.headers.get('idempotency-key'),
      url: request.url,
      at: Date.now(),
    });
    const answer = answers.shift();
    if (!answer) throw new Error('more requests than answers');
    if (answer === 'hang') {
      return new Promise<Response>((_resolve, reject) =>
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- fetch rejects with the abort reason as given
        request.signal.addEventListener('abort', () => reject(request.signal.reason)),
      );
    }
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return {
    sent,
    client: createRecordsClient({ baseUrl: 'http://records.test', apiKey: 'sk_test', fetch, ...options }),
  };
}
const connectionReset = () => new TypeError('fetch failed');
const FAST = { retry: { networkBackoffMs: 1 } };

// The 503 the service answers while its database is unreachable cannot be had from a running
// service on demand; the 429 path is covered against the service (client.e2e-spec.ts).
describe('retries after 503 database_unavailable', () => {
  it('waits the Retry-After, then sends the write again with its Idempotency-Key', async () => {
    const { sent, client } = scripted([json(503, UNAVAILABLE, { 'retry-after': '1' }), json(200, NOTE)]);
    const note = await client.post('/v1/notes', { body: { fields: { $title: 'Later' } } });
    expect(note.id).toBe(NOTE.id);
    expect(sent).toHaveLength(2);
    expect(sent[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1].idempotencyKey).toBe(sent[0].idempotencyKey);
    expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(1000);
  });

  it('does not wait a Retry-After longer than maxDelaySeconds, nor more than maxRetries times', async () => {
    const tooLong = scripted([json(503, UNAVAILABLE, { 'retry-after': '3600' })]);
    const error = await tooLong.client.get('/v1/auth/validate').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RecordsApiError);
    expect(error).toMatchObject({ status: 503, code: 'database_unavailable', retryAfterSeconds: 3600 });
    expect(tooLong.sent).toHaveLength(1);

    const unavailable = () => json(503, UNAVAILABLE, { 'retry-after': '0' });
    const spent = scripted([unavailable(), unavailable(), unavailable(), unavailable()]);
    await expect(spent.client.get('/v1/auth/validate')).rejects.toMatchObject({ status: 503 });
    expect(spent.sent).toHaveLength(4);
    expect(spent.sent.map((request) => request.idempotencyKey)).toEqual([null, null, null, null]);
  });
});

describe('the wait for Retry-After', () => {
  it('ends as soon as the caller aborts, with the abort’s reason', async () => {
    const { sent, client } = scripted([json(503, UNAVAILABLE, { 'retry-after': '20' })]);
    const controller = new AbortController();
    const started = Date.now();
    const call = client.get('/v1/auth/validate', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(call).rejects.toThrow('caller gave up');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sent).toHaveLength(1);
  });
});

describe('network failures', () => {
  it('sends a read again after a connection failure, with a backoff', async () => {
    const { sent, client } = scripted([connectionReset(), json(200, NOTE)], FAST);
    expect((await client.get('/v1/notes/{id}', { params: { path: { id: NOTE.id } } })).id).toBe(NOTE.id);
    expect(sent.map((request) => request.method)).toEqual(['GET', 'GET']);
  });

  it('sends a write again with the same Idempotency-Key, so that one that landed is replayed, not made twice', async () => {
    const { sent, client } = scripted([connectionReset(), connectionReset(), json(200, NOTE)], FAST);
    await client.post('/v1/notes', { body: { fields: { $title: 'Once' } } });
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((request) => request.idempotencyKey)).size).toBe(1);
    expect(sent[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives the failure to the caller once maxRetries are spent', async () => {
    const { sent, client } = scripted([connectionReset(), connectionReset()], {
      retry: { networkBackoffMs: 1, maxRetries: 1 },
    });
    await expect(client.get('/v1/auth/validate')).rejects.toThrow('fetch failed');
    expect(sent).toHaveLength(2);
  });

  it('abandons an attempt that gets no answer within timeoutMs, and tries again', async () => {
    const { sent, client } = scripted(['hang', json(200, NOTE)], { ...FAST, timeoutMs: 100 });
    expect((await client.get('/v1/notes/{id}', { params: { path: { id: NOTE.id } } })).id).toBe(NOTE.id);
    expect(sent).toHaveLength(2);
    expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(90);
  });

  it('does not retry a call its caller aborted', async () => {
    const controller = new AbortController();
    const { sent, client } = scripted(['hang', json(200, NOTE)], FAST);
    const call = client.get('/v1/auth/validate', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(call).rejects.toThrow('stop');
    expect(sent).toHaveLength(1);
  });
});

describe('items', () => {
  it('yields every item of every page, following nextCursor, and stops after the last page', async () => {
    const page = (ids: string[], nextCursor: string | null) =>
      json(200, { object: 'list', data: ids.map((id) => ({ ...NOTE, id })), totalCount: 3, nextCursor });
    const { sent, client } = scripted([page(['note_a', 'note_b'], 'c2'), page(['note_c'], null)]);
    const ids: string[] = [];
    for await (const note of client.items('/v1/notes', { params: { query: { limit: 2, offset: 0 } } }))
      ids.push(note.id);
    expect(ids).toEqual(['note_a', 'note_b', 'note_c']);
    expect(sent.map((request) => new URL(request.url).search)).toEqual(['?limit=2&offset=0', '?limit=2&cursor=c2']);
  });
});
