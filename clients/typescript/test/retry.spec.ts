import { createRecordsClient, RecordsApiError } from '../src';

const NOTE = {
  id: 'note_01JD6Y3Z8Q0N5V4W7X2C9B1A3E',
  createdAt: '2026-03-01T00:00:00.000Z',
  updatedAt: null,
  httpLink: null,
  fields: {},
  relationships: {},
};
const UNAVAILABLE = { error: { type: 'service_unavailable', code: 'database_unavailable', message: 'The database is unavailable' } };

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A service stand-in that gives the answers in turn and records what it was sent. */
function scripted(...answers: Response[]) {
  const sent: { method: string; idempotencyKey: string | null; at: number }[] = [];
  const fetch = async (request: Request) => {
    sent.push({ method: request.method, idempotencyKey: request.headers.get('idempotency-key'), at: Date.now() });
    const answer = answers.shift();
    if (!answer) throw new Error('more requests than answers');
    return answer;
  };
  return { sent, client: createRecordsClient({ baseUrl: 'http://records.test', apiKey: 'sk_test', fetch }) };
}

// The 503 the service answers while its database is unreachable cannot be had from a running
// service on demand; the 429 path is covered against the service (client.e2e-spec.ts).
describe('retries after 503 database_unavailable', () => {
  it('waits the Retry-After, then sends the write again with its Idempotency-Key', async () => {
    const { sent, client } = scripted(json(503, UNAVAILABLE, { 'retry-after': '1' }), json(200, NOTE));
    const note = await client.post('/v1/notes', { body: { fields: { $title: 'Later' } } });
    expect(note.id).toBe(NOTE.id);
    expect(sent).toHaveLength(2);
    expect(sent[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[1].idempotencyKey).toBe(sent[0].idempotencyKey);
    expect(sent[1].at - sent[0].at).toBeGreaterThanOrEqual(1000);
  });

  it('does not wait a Retry-After longer than maxDelaySeconds, nor more than maxRetries times', async () => {
    const tooLong = scripted(json(503, UNAVAILABLE, { 'retry-after': '3600' }));
    const error = await tooLong.client.get('/v1/auth/validate').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(RecordsApiError);
    expect(error).toMatchObject({ status: 503, code: 'database_unavailable', retryAfterSeconds: 3600 });
    expect(tooLong.sent).toHaveLength(1);

    const unavailable = () => json(503, UNAVAILABLE, { 'retry-after': '0' });
    const spent = scripted(unavailable(), unavailable(), unavailable(), unavailable());
    await expect(spent.client.get('/v1/auth/validate')).rejects.toMatchObject({ status: 503 });
    expect(spent.sent).toHaveLength(4);
    expect(spent.sent.map((request) => request.idempotencyKey)).toEqual([null, null, null, null]);
  });
});
