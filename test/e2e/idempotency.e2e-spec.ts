import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { IdempotencySweeper } from '../../src/common/idempotency/idempotency-sweeper';
import { concurrently, Gate } from '../support/concurrency';
import { expectError } from '../support/errors';
import { createKey, createWorkspace, TestWorkspace } from '../support/factories';
import {
  ensureProbeTable,
  probeControl,
  ProbeItem,
  probeRows,
  WriteProbeController,
} from '../support/probe-controllers';
import { createTestApp, TestApp, v1Headers } from '../support/test-app';

let sequence = 0;
/** A label (the probe row's marker) and an Idempotency-Key, both new. */
function fresh(): { label: string; key: string } {
  sequence += 1;
  const unique = `${process.pid}-${Date.now()}-${sequence}`;
  return { label: `idem-${unique}`, key: `key-${unique}` };
}

describe('Idempotency-Key on POST /v1 routes', () => {
  let t: TestApp;
  let dataSource: DataSource;
  let ws: TestWorkspace;

  const post = (apiKey: string, idempotencyKey: string | undefined, body: object, path = '/v1/test-probe/items') => {
    const request = t.http.post(path).set(v1Headers(apiKey));
    if (idempotencyKey !== undefined) request.set('Idempotency-Key', idempotencyKey);
    return request.send(body);
  };
  const rows = (label: string) => probeRows(dataSource, label);
  const storedResponses = async (apiKeyId: string, key: string): Promise<number> =>
    (
      await dataSource.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`, [
        apiKeyId,
        key,
      ])
    )[0].n;

  /** Moves a stored response back in time, past or within its 24 hours. */
  const ageStored = (apiKeyId: string, key: string, hours: number) =>
    dataSource.query(
      `UPDATE idempotency_keys SET created_at = now() - $3 * interval '1 hour' WHERE api_key_id = $1 AND key = $2`,
      [apiKeyId, key, hours],
    );

  beforeAll(async () => {
    t = await createTestApp({ controllers: [WriteProbeController] });
    dataSource = t.app.get(DataSource);
    await ensureProbeTable(dataSource);
    ws = await createWorkspace(t.http);
  });
  afterEach(() => {
    probeControl.gate?.open();
    probeControl.gate = undefined;
    probeControl.failuresLeft = 0;
  });
  afterAll(() => t.close());

  it('replays the first response, with Idempotent-Replayed: true, without running the operation again', async () => {
    const { label, key } = fresh();
    const first = await post(ws.key, key, { label });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(first.body).toEqual({ object: 'probe', id: expect.stringMatching(/^rec_/), label, extra: null });

    for (let i = 0; i < 3; i += 1) {
      const replay = await post(ws.key, key, { label });
      expect(replay.status).toBe(first.status);
      // The very bytes: members in the order the first answer had them, not the order a store chose.
      expect(replay.text).toBe(first.text);
      expect(replay.headers['idempotent-replayed']).toBe('true');
    }
    expect(await rows(label)).toEqual([{ id: first.body.id, api_key_id: ws.apiKeyId }]);
    expect(await storedResponses(ws.apiKeyId, key)).toBe(1);
  });

  it('treats the same JSON with its members in another order as the same body', async () => {
    const { label, key } = fresh();
    const first = await post(ws.key, key, { label, extra: { a: 1, b: [1, 2], c: { x: true, y: null } } });
    const replay = await post(ws.key, key, { extra: { c: { y: null, x: true }, b: [1, 2], a: 1 }, label });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(await rows(label)).toHaveLength(1);
  });

  it('runs every request without an Idempotency-Key', async () => {
    const { label } = fresh();
    const responses = [await post(ws.key, undefined, { label }), await post(ws.key, undefined, { label })];
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    expect(responses[0].body.id).not.toBe(responses[1].body.id);
    expect(await rows(label)).toHaveLength(2);
  });

  it.each([
    ['a different body', (label: string) => ({ body: { label: `${label}-other` }, path: '/v1/test-probe/items' })],
    ['an extra member', (label: string) => ({ body: { label, extra: {} }, path: '/v1/test-probe/items' })],
    ['a different path', (label: string) => ({ body: { label }, path: '/v1/test-probe/other-items' })],
    ['a query string', (label: string) => ({ body: { label }, path: '/v1/test-probe/items?x=1' })],
  ])('answers 422 idempotency_key_reused for the same key with %s', async (_case, change) => {
    const { label, key } = fresh();
    const first = await post(ws.key, key, { label });
    expect(first.status).toBe(200);
    const { body, path } = change(label);
    const reused = await post(ws.key, key, body, path);
    expectError(reused, 422, 'idempotency_key_reused', 'Idempotency-Key');
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    expect(await rows(label)).toHaveLength(1);
    expect(await rows(`${label}-other`)).toHaveLength(0);
    // The original is still replayed.
    const replay = await post(ws.key, key, { label });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('answers 409 idempotency_conflict while the first request is still running', async () => {
    const { label, key } = fresh();
    probeControl.gate = new Gate();
    const first = post(ws.key, key, { label, hold: true }).then((response) => response);
    await probeControl.gate.arrived;

    const duplicate = await post(ws.key, key, { label, hold: true });
    expectError(duplicate, 409, 'idempotency_conflict', 'Idempotency-Key');
    // Even with another body: the first holds the key.
    expectError(await post(ws.key, key, { label: `${label}-other` }), 409, 'idempotency_conflict', 'Idempotency-Key');

    probeControl.gate.open();
    const completed = await first;
    expect(completed.status).toBe(200);
    const replay = await post(ws.key, key, { label, hold: true });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(completed.body);
    expect(await rows(label)).toHaveLength(1);
  });

  it('runs concurrent duplicates exactly once: every answer is the one response or a 409', async () => {
    const { label, key } = fresh();
    probeControl.gate = new Gate();
    const gate = probeControl.gate;
    const pending = concurrently(10, () =>
      post(ws.key, key, { label, hold: true }).then((response: Response) => response),
    );
    // Let the first reach the handler, give the others time to arrive, then let it finish.
    await gate.arrived;
    setTimeout(() => gate.open(), 300);
    const responses = await pending;

    const ok = responses.filter((response) => response.status === 200);
    const conflicts = responses.filter((response) => response.status !== 200);
    // The first held the key for 300 ms after reaching the handler: the others met it running.
    expect(conflicts.length).toBeGreaterThan(0);
    for (const response of conflicts) expectError(response, 409, 'idempotency_conflict', 'Idempotency-Key');
    expect(ok.filter((response) => response.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(ok.map((response) => JSON.stringify(response.body))).size).toBe(1);
    const stored = await rows(label);
    expect(stored).toEqual([{ id: ok[0].body.id, api_key_id: ws.apiKeyId }]);
  });

  it('stores no error: a request refused by validation may be retried with the same key', async () => {
    const { label, key } = fresh();
    expectError(await post(ws.key, key, { label: 42 }), 400, 'invalid_type', 'label');
    expect(await storedResponses(ws.apiKeyId, key)).toBe(0);
    const retry = await post(ws.key, key, { label });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await rows(label)).toHaveLength(1);
  });

  it('stores no error: a request that failed after writing is rolled back and may be retried, then succeeds once', async () => {
    const { label, key } = fresh();
    probeControl.failuresLeft = 1;
    expectError(await post(ws.key, key, { label }), 409, 'invalid_state');
    expect(await rows(label)).toEqual([]);
    expect(await storedResponses(ws.apiKeyId, key)).toBe(0);

    const retry = await post(ws.key, key, { label });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await post(ws.key, key, { label });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(retry.body);
    expect(await rows(label)).toEqual([{ id: retry.body.id, api_key_id: ws.apiKeyId }]);
  });

  it('leaves neither the write nor a stored response when the handler crashes after writing', async () => {
    const { label, key } = fresh();
    expectError(await post(ws.key, key, { label, fail: 'crash' }), 500, 'internal_error');
    expect(await rows(label)).toEqual([]);
    expect(await storedResponses(ws.apiKeyId, key)).toBe(0);
    expectError(await post(ws.key, key, { label, fail: 'error' }), 409, 'invalid_state');
    expect(await rows(label)).toEqual([]);
    expect(await storedResponses(ws.apiKeyId, key)).toBe(0);
  });

  it('also rolls back a failed write made without an Idempotency-Key', async () => {
    const { label } = fresh();
    expectError(await post(ws.key, undefined, { label, fail: 'crash' }), 500, 'internal_error');
    expect(await rows(label)).toEqual([]);
  });

  it('accepts a key of 255 characters and answers 400 idempotency_key_too_long for 256', async () => {
    const { label } = fresh();
    const longest = 'k'.repeat(254) + String(sequence % 10);
    const accepted = await post(ws.key, longest, { label });
    expect(accepted.status).toBe(200);
    expect((await post(ws.key, longest, { label })).headers['idempotent-replayed']).toBe('true');

    const tooLong = await post(ws.key, `${longest}x`, { label });
    expectError(tooLong, 400, 'idempotency_key_too_long', 'Idempotency-Key');
    expect(tooLong.body.error.message).toContain('255');
    expect(await rows(label)).toHaveLength(1);
  });

  it('answers 400 invalid_parameter for an empty Idempotency-Key', async () => {
    const { label } = fresh();
    expectError(await post(ws.key, '', { label }), 400, 'invalid_parameter', 'Idempotency-Key');
    expect(await rows(label)).toEqual([]);
  });

  it('scopes keys to the API key: two keys of one member never see each other’s responses', async () => {
    const { label, key } = fresh();
    const second = await createKey(t.http, ws.workspaceId, ws.memberId, ['*']);
    const mine = await post(ws.key, key, { label });
    const theirs = await post(second.key, key, { label });
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // A third key sending that Idempotency-Key with another body is not "reusing" it: it is its own.
    const third = await createKey(t.http, ws.workspaceId, ws.memberId, ['*']);
    const otherBody = await post(third.key, key, { label: `${label}-b` });
    expect(otherBody.status).toBe(200);
    expect(otherBody.headers['idempotent-replayed']).toBeUndefined();
    expect(otherBody.body.label).toBe(`${label}-b`);

    const myReplay = await post(ws.key, key, { label });
    const theirReplay = await post(second.key, key, { label });
    expect(myReplay.body).toEqual(mine.body);
    expect(theirReplay.body).toEqual(theirs.body);
    expect((await rows(label)).map((row) => row.api_key_id).sort()).toEqual([ws.apiKeyId, second.id].sort());
  });

  it('keeps the same Idempotency-Key of two workspaces apart', async () => {
    const { label, key } = fresh();
    const other = await createWorkspace(t.http);
    const mine = await post(ws.key, key, { label });
    const theirs = await post(other.key, key, { label });
    expect(theirs.status).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('ignores Idempotency-Key on reads', async () => {
    const { key } = fresh();
    for (let i = 0; i < 2; i += 1) {
      const response = await t.http.get('/v1/auth/validate').set(v1Headers(ws.key)).set('Idempotency-Key', key);
      expect(response.status).toBe(200);
      expect(response.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await storedResponses(ws.apiKeyId, key)).toBe(0);
  });

  it('stores the response it returned (status and body)', async () => {
    const { label, key } = fresh();
    const response = await post(ws.key, key, { label });
    const stored: { response_status: number; response_body: ProbeItem }[] = await dataSource.query(
      `SELECT response_status, response_body FROM idempotency_keys WHERE api_key_id = $1 AND key = $2`,
      [ws.apiKeyId, key],
    );
    expect(stored).toEqual([{ response_status: 200, response_body: response.body }]);
  });

  it('replays for 24 hours; after that the key runs the request anew, with any body, and stores the new response', async () => {
    const { label, key } = fresh();
    const first = await post(ws.key, key, { label });
    await ageStored(ws.apiKeyId, key, 23.9);
    expect((await post(ws.key, key, { label })).headers['idempotent-replayed']).toBe('true');

    await ageStored(ws.apiKeyId, key, 24.1);
    const again = await post(ws.key, key, { label: `${label}-b` });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.id).not.toBe(first.body.id);
    const replay = await post(ws.key, key, { label: `${label}-b` });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(again.body);
    expect(await storedResponses(ws.apiKeyId, key)).toBe(1);
  });

  it('sweeps stored responses past their 24 hours and keeps the others', async () => {
    const expired = fresh();
    const current = fresh();
    await post(ws.key, expired.key, { label: expired.label });
    await post(ws.key, current.key, { label: current.label });
    await ageStored(ws.apiKeyId, expired.key, 24.1);
    await ageStored(ws.apiKeyId, current.key, 23.9);

    expect(await t.app.get(IdempotencySweeper).sweep()).toBeGreaterThanOrEqual(1);
    expect(await storedResponses(ws.apiKeyId, expired.key)).toBe(0);
    expect(await storedResponses(ws.apiKeyId, current.key)).toBe(1);
  });
});
