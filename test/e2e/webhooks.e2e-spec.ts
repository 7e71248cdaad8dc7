import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { newId } from '../../src/common/ids';
import { signatureOf } from '../../src/modules/webhooks/webhook-deliveries';
import { WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository';
import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { OpenApiValidator } from '../support/openapi';
import { createIsolatedTestApp } from '../support/scratch-database';
import { TestApp, v1Headers } from '../support/test-app';
import { until } from '../support/concurrency';
import { takeRefusedConnections } from '../support/loopback-only';
import { WebhookReceiver } from '../support/webhook-receiver';

const DAY_MS = 24 * 3600 * 1000;
/** A retry 2 s after a failure (± 10 %), one more 2 s after that: a FAILED attempt is followed by a PENDING one long enough to be seen. */
const RETRY_SCHEDULE = '0,2,2';
/**
 * A public address (TEST-NET-3, RFC 5737): accepted without WEBHOOK_ALLOW_PRIVATE_NETWORKS, and no
 * DNS needed. Never connected to: every test app holds its deliveries to loopback
 * (WEBHOOK_ALLOWED_NETWORKS), so an attempt a worker makes to it fails without a connection.
 */
const PUBLIC_URL = 'https://203.0.113.10/hooks';
/**
 * The main suite's endpoints subscribe to a type its tests never cause, and a test that subscribes
 * one to another type deletes it, so that they make no delivery attempts on the database the run
 * shares (see createIsolatedTestApp).
 */
const QUIET_TYPES = ['task.created'];
const PRIVATE_URLS = [
  'http://127.0.0.1/x',
  'http://localhost/x',
  'http://[::1]/x',
  'http://10.0.0.1/',
  'http://169.254.169.254/',
  'http://[::ffff:127.0.0.1]/',
];

interface Endpoint {
  id: string;
  secret?: string;
  url: string;
  eventTypes: string[];
  status: string;
  description: string | null;
  disabledReason: string | null;
  updatedAt: string;
}

interface Delivery {
  eventId: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  attemptedAt: string | null;
  nextAttemptAt: string | null;
}

/** What a receiver got: the request's path, headers and body. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('webhooks', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const del = (path: string, key = suite.ws.key) => suite.t.http.delete(path).set(v1Headers(key));
  const create = async (body: Record<string, unknown> = {}, key = suite.ws.key): Promise<Endpoint> => {
    const response = await post('/v1/webhooks', { url: PUBLIC_URL, eventTypes: QUIET_TYPES, ...body }, key);
    expect(response.status).toBe(200);
    return response.body as Endpoint;
  };
  const discard = async (id: string) => expect((await del(`/v1/webhooks/${id}`)).status).toBe(200);
  const note = async (key = suite.ws.key): Promise<string> => {
    const response = await post('/v1/notes', { fields: { $title: 'Kick-off' } }, key);
    expect(response.status).toBe(200);
    return response.body.id as string;
  };
  /** The id of the newest event of the workspace. */
  const lastEventId = async (key = suite.ws.key): Promise<string> => {
    const events: { id: string }[] = [];
    for (let cursor: string | undefined, page; !page || page.data.length > 0; cursor = page.nextCursor) {
      page = (await get(`/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, key)).body as {
        data: { id: string }[];
        nextCursor: string;
      };
      events.push(...page.data);
    }
    return events[events.length - 1].id;
  };
  const stored = (id: string, workspaceId = suite.ws.workspaceId) =>
    suite.t.app.get(WebhooksRepository).findEndpoint(workspaceId, id);

  describe('endpoints', () => {
    it('creates an endpoint owned by the caller’s member and key, and shows its secret on create only', async () => {
      const response = await post('/v1/webhooks', {
        url: PUBLIC_URL,
        eventTypes: ['task.created', 'task.updated'],
        description: 'CRM sync',
      });
      expect(response.status).toBe(200);
      suite.openapi.assert(response);
      expect(response.body).toEqual({
        id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
        object: 'webhook',
        url: PUBLIC_URL,
        eventTypes: ['task.created', 'task.updated'],
        description: 'CRM sync',
        status: 'ENABLED',
        disabledReason: null,
        memberId: suite.ws.memberId,
        createdAt: expect.any(String),
        updatedAt: response.body.createdAt,
        version: 1,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      });
      // The Standard Webhooks library takes the secret as it is shown (24 random bytes, base64).
      expect(() => new Webhook(response.body.secret)).not.toThrow();
      expect(Buffer.from(response.body.secret.slice('whsec_'.length), 'base64')).toHaveLength(24);
      const row = await stored(response.body.id);
      expect({ memberId: row?.member_id, apiKeyId: row?.api_key_id, secret: row?.secret }).toEqual({
        memberId: suite.ws.memberId,
        apiKeyId: suite.ws.apiKeyId,
        secret: response.body.secret,
      });

      const { secret: _secret, ...shown } = response.body;
      const read = await get(`/v1/webhooks/${response.body.id}`);
      expect(read.status).toBe(200);
      suite.openapi.assert(read);
      expect(read.body).toEqual(shown);
      const listed = await get('/v1/webhooks');
      expect(listed.body.data.find((webhook: Endpoint) => webhook.id === response.body.id)).toEqual(shown);
      expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    });

    it('stores the URL as parsed (host in lower case), the event types once each, and an empty description as none', async () => {
      const webhook = await create({
        url: 'HTTPS://203.0.113.10:8443/Hooks?x=1',
        eventTypes: ['task.created', 'task.created'],
        description: '',
      });
      expect(webhook).toMatchObject({
        url: 'https://203.0.113.10:8443/Hooks?x=1',
        eventTypes: ['task.created'],
        description: null,
      });
      const everything = await create({ eventTypes: ['*'], description: null });
      expect(everything).toMatchObject({ eventTypes: ['*'], description: null });
      await discard(everything.id);
    });

    it('lists every endpoint of the workspace to every key with webhooks:read, newest first, paged with cursors', async () => {
      const ws = await createWorkspace(suite.t.http);
      const made = [];
      for (let i = 0; i < 3; i += 1) made.unshift((await create({ description: `Endpoint ${i}` }, ws.key)).id);
      // Another member's key that may only read webhooks.
      const member = await createMember(suite.t.http, ws.workspaceId);
      const reader = await createKey(suite.t.http, ws.workspaceId, member.id, ['webhooks:read']);
      const first = await get('/v1/webhooks?limit=2', reader.key);
      expect(first.status).toBe(200);
      suite.openapi.assert(first);
      expect(first.body).toMatchObject({ object: 'list', totalCount: 3, nextCursor: expect.any(String) });
      expect(first.body.data.map((webhook: Endpoint) => webhook.id)).toEqual(made.slice(0, 2));
      const rest = await get(`/v1/webhooks?cursor=${first.body.nextCursor}`, reader.key);
      expect(rest.status).toBe(200);
      expect(rest.body.data.map((webhook: Endpoint) => webhook.id)).toEqual(made.slice(2));
      expect(rest.body.nextCursor).toBeNull();
      expect(
        (await get('/v1/webhooks?offset=1&limit=1', reader.key)).body.data.map((webhook: Endpoint) => webhook.id),
      ).toEqual([made[1]]);
      expectError(await get('/v1/webhooks?status=ENABLED', reader.key), 400, 'invalid_parameter', 'status');
    });

    it('updates the URL, event types and description, and writes nothing when nothing changes', async () => {
      const webhook = await create({ description: 'Before' });
      const updated = await post(`/v1/webhooks/${webhook.id}`, {
        url: 'https://203.0.113.11/other',
        eventTypes: ['task.updated', 'task.created'],
        description: 'After',
      });
      expect(updated.status).toBe(200);
      suite.openapi.assert(updated);
      expect(updated.body).toMatchObject({
        id: webhook.id,
        url: 'https://203.0.113.11/other',
        eventTypes: ['task.updated', 'task.created'],
        description: 'After',
      });
      expect(updated.body.secret).toBeUndefined();
      expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(webhook.updatedAt));

      const same = await post(`/v1/webhooks/${webhook.id}`, {
        url: 'https://203.0.113.11/other',
        description: 'After',
        status: 'ENABLED',
      });
      expect(same.body).toEqual(updated.body);
      expect((await post(`/v1/webhooks/${webhook.id}`, {})).body).toEqual(updated.body);
      // null keeps a value, as for any optional member; an empty description clears it.
      expect((await post(`/v1/webhooks/${webhook.id}`, { description: null })).body.description).toBe('After');
      expect((await post(`/v1/webhooks/${webhook.id}`, { description: '' })).body.description).toBeNull();
    });

    it('disables an endpoint with the reason that a person did, and clears the reason when it is enabled again', async () => {
      const webhook = await create();
      const disabled = await post(`/v1/webhooks/${webhook.id}`, { status: 'DISABLED' });
      expect(disabled.status).toBe(200);
      suite.openapi.assert(disabled);
      expect(disabled.body).toMatchObject({
        status: 'DISABLED',
        disabledReason: `disabled through the API by member ${suite.ws.memberId}`,
      });
      expect((await get(`/v1/webhooks/${webhook.id}`)).body).toEqual(disabled.body);
      const enabled = await post(`/v1/webhooks/${webhook.id}`, { status: 'ENABLED' });
      expect(enabled.body).toMatchObject({ status: 'ENABLED', disabledReason: null });
    });

    it('keeps the reason the service disabled an endpoint for when a person disables it again', async () => {
      const webhook = await create();
      await suite.t.app.get(WebhooksRepository).disableEndpoint(webhook.id, 'the receiver answered 410 Gone');
      const again = await post(`/v1/webhooks/${webhook.id}`, { status: 'DISABLED' });
      expect(again.body).toMatchObject({ status: 'DISABLED', disabledReason: 'the receiver answered 410 Gone' });
    });

    it('deletes an endpoint: answers it (without its secret) with 200, then knows it no more', async () => {
      const webhook = await create();
      const deleted = await del(`/v1/webhooks/${webhook.id}`);
      expect(deleted.status).toBe(200);
      suite.openapi.assert(deleted);
      const { secret: _secret, ...shown } = webhook;
      expect(deleted.body).toEqual(shown);
      expect(await stored(webhook.id)).toBeUndefined();
      expectError(await get(`/v1/webhooks/${webhook.id}`), 404, 'not_found');
      expectError(await del(`/v1/webhooks/${webhook.id}`), 404, 'not_found');
      expectError(await post(`/v1/webhooks/${webhook.id}`, { description: 'x' }), 404, 'not_found');
      expect((await get('/v1/webhooks')).body.data.map((item: Endpoint) => item.id)).not.toContain(webhook.id);
    });

    it('replays a delete or a create sent again with its Idempotency-Key', async () => {
      const webhook = await create();
      const keyed = (key: string) =>
        suite.t.http.delete(`/v1/webhooks/${webhook.id}`).set({ ...v1Headers(suite.ws.key), 'Idempotency-Key': key });
      const key = `delete-${webhook.id}`;
      const first = await keyed(key);
      const again = await keyed(key);
      expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
      expect(again.body).toEqual(first.body);
      expectError(await keyed(`${key}-other`), 404, 'not_found');

      const createKeyed = () =>
        suite.t.http
          .post('/v1/webhooks')
          .set({ ...v1Headers(suite.ws.key), 'Idempotency-Key': `create-${webhook.id}` })
          .send({ url: PUBLIC_URL, eventTypes: QUIET_TYPES });
      const created = await createKeyed();
      const replayed = await createKeyed();
      expect([created.status, replayed.status, replayed.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
      expect(replayed.body).toEqual(created.body);
    });
  });

  describe('secrets', () => {
    it('rotates: a new secret shown once, while the one it replaces keeps signing beside it for 24 hours', async () => {
      const webhook = await create();
      const before = Date.now();
      const rotated = await post(`/v1/webhooks/${webhook.id}/rotate-secret`, {});
      expect(rotated.status).toBe(200);
      suite.openapi.assert(rotated);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(webhook.secret);
      expect((await get(`/v1/webhooks/${webhook.id}`)).body.secret).toBeUndefined();

      const row = (await stored(webhook.id))!;
      expect(row.secret).toBe(rotated.body.secret);
      expect(row.previous_secret).toBe(webhook.secret);
      expect(row.previous_secret_until!.getTime()).toBeGreaterThanOrEqual(before + DAY_MS);
      expect(row.previous_secret_until!.getTime()).toBeLessThanOrEqual(Date.now() + DAY_MS);

      // What the delivery path signs with: both secrets within the 24 hours, the new one alone after.
      const body = JSON.stringify({ id: 'evt_1' });
      const signed = (secret: string, at: Date) => new Webhook(secret).sign('evt_1', at, body);
      const soon = new Date();
      const later = new Date(row.previous_secret_until!.getTime() + 1000);
      expect(signatureOf(row, 'evt_1', soon, body)).toBe(
        `${signed(rotated.body.secret, soon)} ${signed(webhook.secret!, soon)}`,
      );
      expect(signatureOf(row, 'evt_1', later, body)).toBe(signed(rotated.body.secret, later));
    });

    it('rotating again replaces the previous secret with the one just rotated out', async () => {
      const webhook = await create();
      const first = (await post(`/v1/webhooks/${webhook.id}/rotate-secret`, {})).body.secret as string;
      const second = await suite.t.http.post(`/v1/webhooks/${webhook.id}/rotate-secret`).set(v1Headers(suite.ws.key));
      expect(second.status).toBe(200);
      const row = (await stored(webhook.id))!;
      expect([row.previous_secret, row.secret]).toEqual([first, second.body.secret]);
      expectError(
        await post(`/v1/webhooks/${webhook.id}/rotate-secret`, { secret: 'mine' }),
        400,
        'unknown_field',
        'secret',
      );
    });
  });

  describe('refusals', () => {
    it.each([
      ['url not a string', { url: 42 }, 400, 'invalid_type', 'url'],
      ['url missing', { url: undefined }, 422, 'parameter_missing', 'url'],
      ['url not a URL', { url: 'hooks.example' }, 422, 'invalid_value', 'url'],
      ['another scheme', { url: 'ftp://203.0.113.10/x' }, 422, 'invalid_value', 'url'],
      ['a javascript: URL', { url: 'javascript:alert(1)' }, 422, 'invalid_value', 'url'],
      ['a URL over 2,048 characters', { url: `https://203.0.113.10/${'a'.repeat(2048)}` }, 422, 'invalid_value', 'url'],
      ['credentials in the URL', { url: 'https://user:pass@203.0.113.10/x' }, 422, 'invalid_value', 'url'],
      ['an unknown event type', { eventTypes: ['task.created', 'note.deleted'] }, 422, 'invalid_value', 'eventTypes'],
      ['no event type', { eventTypes: [] }, 422, 'invalid_value', 'eventTypes'],
      ['event types missing', { eventTypes: undefined }, 422, 'parameter_missing', 'eventTypes'],
      ['event types not an array', { eventTypes: 'task.created' }, 400, 'invalid_type', 'eventTypes'],
      ['event types not strings', { eventTypes: [1] }, 400, 'invalid_type', 'eventTypes'],
      ['* beside other types', { eventTypes: ['*', 'task.created'] }, 422, 'invalid_value', 'eventTypes'],
      ['a description not a string', { description: 5 }, 400, 'invalid_type', 'description'],
      ['a description too long', { description: 'd'.repeat(1001) }, 422, 'invalid_value', 'description'],
      ['an unknown member', { secret: 'whsec_mine' }, 400, 'unknown_field', 'secret'],
      ['a status on create', { status: 'DISABLED' }, 400, 'unknown_field', 'status'],
    ])('refuses a create with %s', async (_what, change, status, code, param) => {
      expectError(
        await post('/v1/webhooks', { url: PUBLIC_URL, eventTypes: QUIET_TYPES, ...change }),
        status,
        code,
        param,
      );
    });

    it.each([
      ['url not a string', { url: ['https://203.0.113.10/'] }, 400, 'invalid_type', 'url'],
      ['another scheme', { url: 'file:///etc/passwd' }, 422, 'invalid_value', 'url'],
      ['an unknown event type', { eventTypes: ['nope'] }, 422, 'invalid_value', 'eventTypes'],
      ['no event type', { eventTypes: [] }, 422, 'invalid_value', 'eventTypes'],
      ['an unknown status', { status: 'PAUSED' }, 400, 'invalid_type', 'status'],
      ['an unknown member', { disabledReason: 'mine' }, 400, 'unknown_field', 'disabledReason'],
    ])('refuses an update with %s, changing nothing', async (_what, change, status, code, param) => {
      const webhook = await create();
      expectError(await post(`/v1/webhooks/${webhook.id}`, change), status, code, param);
      const { secret: _secret, ...shown } = webhook;
      expect((await get(`/v1/webhooks/${webhook.id}`)).body).toEqual(shown);
    });

    it('refuses an event type the creating key may not read with 403 naming the scopes it lacks; * is what the key may read', async () => {
      const member = await createMember(suite.t.http, suite.ws.workspaceId);
      const notesOnly = (
        await createKey(suite.t.http, suite.ws.workspaceId, member.id, [
          'webhooks:write',
          'webhooks:read',
          'notes:read',
        ])
      ).key;
      const refused = await post(
        '/v1/webhooks',
        { url: PUBLIC_URL, eventTypes: ['note.created', 'task.created', 'list.created', 'task.updated'] },
        notesOnly,
      );
      expectError(refused, 403, 'insufficient_scope');
      expect(refused.body.error.message).toBe(
        'Subscribing to task.created, list.created, task.updated events requires the scopes tasks:read and lists:read; missing: tasks:read, lists:read',
      );
      const everything = await create({ eventTypes: ['*'] }, notesOnly);
      expect(everything.eventTypes).toEqual(['*']);
      await discard(everything.id);
      const allowed = await create({ eventTypes: ['note.updated'] }, notesOnly);
      expect(allowed.eventTypes).toEqual(['note.updated']);
      const widened = await post(`/v1/webhooks/${allowed.id}`, { eventTypes: ['task.created'] }, notesOnly);
      expectError(widened, 403, 'insufficient_scope');
      expect(widened.body.error.message).toBe(
        'Subscribing to task.created events requires the scope tasks:read; missing: tasks:read',
      );
      expect((await post(`/v1/webhooks/${allowed.id}`, { eventTypes: ['*'] }, notesOnly)).body.eventTypes).toEqual([
        '*',
      ]);
      await discard(allowed.id);
    });

    it('refuses a key that may not read what an endpoint is sent to point it at another URL (403); other changes need webhooks:write only', async () => {
      const byAdmin = await create({ eventTypes: ['meeting.created'] });
      const member = await createMember(suite.t.http, suite.ws.workspaceId);
      const notesOnly = (
        await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['webhooks:write', 'notes:read'])
      ).key;
      const repointed = await post(`/v1/webhooks/${byAdmin.id}`, { url: 'https://203.0.113.12/mine' }, notesOnly);
      expectError(repointed, 403, 'insufficient_scope');
      expect(repointed.body.error.message).toBe(
        'Pointing a webhook sent meeting.created events at another url requires the scope meetings:read; missing: meetings:read',
      );
      expect((await stored(byAdmin.id))?.url).toBe(PUBLIC_URL);
      const disabled = await post(
        `/v1/webhooks/${byAdmin.id}`,
        { status: 'DISABLED', description: 'Paused' },
        notesOnly,
      );
      expect(disabled.status).toBe(200);
      expect(disabled.body.disabledReason).toBe(`disabled through the API by member ${member.id}`);
    });

    it('reads * as what the endpoint’s own key may read: another key may set it, or point it elsewhere, only if it may read all that', async () => {
      const member = await createMember(suite.t.http, suite.ws.workspaceId);
      const notesOnly = (
        await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['webhooks:write', 'notes:read'])
      ).key;
      const notesAndTasks = (
        await createKey(suite.t.http, suite.ws.workspaceId, member.id, ['webhooks:write', 'notes:read', 'tasks:read'])
      ).key;
      // The admin's endpoint with * is sent every type: a key that may read notes only may not make it so, nor point it elsewhere.
      const byAdmin = await create({ eventTypes: ['note.created'] });
      const widened = await post(`/v1/webhooks/${byAdmin.id}`, { eventTypes: ['*'] }, notesOnly);
      expectError(widened, 403, 'insufficient_scope');
      expect(widened.body.error.message).toMatch(
        /^Subscribing a webhook to .* events requires the scopes .*; missing: .*tasks:read/,
      );
      expect((await post(`/v1/webhooks/${byAdmin.id}`, { eventTypes: ['*'] })).body.eventTypes).toEqual(['*']);
      const repointed = await post(`/v1/webhooks/${byAdmin.id}`, { url: 'https://203.0.113.12/mine' }, notesOnly);
      expectError(repointed, 403, 'insufficient_scope');
      expect(repointed.body.error.message).toMatch(
        /^Pointing a webhook sent .* events at another url requires the scopes /,
      );
      expect((await stored(byAdmin.id))?.url).toBe(PUBLIC_URL);
      // A * endpoint of a key that may read notes only is sent notes: a key that may read them may point it elsewhere.
      const byNotesOnly = await create({ eventTypes: ['*'] }, notesOnly);
      const moved = await post(`/v1/webhooks/${byNotesOnly.id}`, { url: 'https://203.0.113.12/mine' }, notesAndTasks);
      expect([moved.status, moved.body.url]).toEqual([200, 'https://203.0.113.12/mine']);
      await discard(byAdmin.id);
      await discard(byNotesOnly.id);
    });

    it('refuses event types the endpoint’s own key may not read (its events are read as that key) with 422; * is what it reads', async () => {
      const notesOnly = (
        await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['webhooks:write', 'notes:read'])
      ).key;
      const webhook = await create({ eventTypes: ['note.created'] }, notesOnly);
      expectError(
        await post(`/v1/webhooks/${webhook.id}`, { eventTypes: ['task.created'] }),
        422,
        'invalid_value',
        'eventTypes',
      );
      expect((await post(`/v1/webhooks/${webhook.id}`, { eventTypes: ['*'] })).body.eventTypes).toEqual(['*']);
      expect((await post(`/v1/webhooks/${webhook.id}`, { eventTypes: ['note.created', 'note.updated'] })).status).toBe(
        200,
      );
      await discard(webhook.id);
    });

    it('answers 404 for an unknown id, an id of another kind or shape, on every route', async () => {
      const noteId = await note();
      const eventId = await lastEventId();
      for (const id of [newId('webhook'), noteId, 'whk_nope', 'WHK_01JD6Y3Z8Q0N5V4W7X2C9B1A3E']) {
        expectError(await get(`/v1/webhooks/${id}`), 404, 'not_found');
        expectError(await post(`/v1/webhooks/${id}`, { description: 'x' }), 404, 'not_found');
        expectError(await del(`/v1/webhooks/${id}`), 404, 'not_found');
        expectError(await post(`/v1/webhooks/${id}/rotate-secret`, {}), 404, 'not_found');
        expectError(await get(`/v1/webhooks/${id}/deliveries`), 404, 'not_found');
        expectError(await post(`/v1/webhooks/${id}/redeliver`, { eventId }), 404, 'not_found');
      }
    });

    it('refuses to redeliver an event the endpoint was never sent, one of another workspace, and not an event id (404)', async () => {
      const webhook = await create();
      await note();
      const ownEvent = await lastEventId();
      await note(suite.other.key);
      const otherEvent = await lastEventId(suite.other.key);
      for (const eventId of [ownEvent, otherEvent, newId('event'), 'evt_x', webhook.id]) {
        expectError(await post(`/v1/webhooks/${webhook.id}/redeliver`, { eventId }), 404, 'not_found');
      }
      expectError(await post(`/v1/webhooks/${webhook.id}/redeliver`, {}), 422, 'parameter_missing', 'eventId');
      expectError(await post(`/v1/webhooks/${webhook.id}/redeliver`, { eventId: 7 }), 400, 'invalid_type', 'eventId');
    });

    it('redelivers an event it subscribes to that it was never sent, such as one older than the endpoint, as its first attempt', async () => {
      await note();
      const older = await lastEventId();
      const webhook = await create({ eventTypes: ['note.created'] });
      const response = await post(`/v1/webhooks/${webhook.id}/redeliver`, { eventId: older });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ eventId: older, attempt: 1, status: 'PENDING' });
      // Whichever app of the shared database takes the job records a failed attempt (WEBHOOK_ALLOWED_NETWORKS); deleted, it makes none.
      expect((await del(`/v1/webhooks/${webhook.id}`)).status).toBe(200);
    });

    it('refuses to redeliver to a * endpoint an event of a type its key may not read (404)', async () => {
      const task = await post('/v1/tasks', {
        fields: { $title: 'Call', $status: 'TODO' },
        relationships: { $assignedTo: suite.ws.memberId },
      });
      expect(task.status).toBe(200);
      const taskEvent = await lastEventId();
      const notesOnly = (
        await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['webhooks:write', 'notes:read'])
      ).key;
      const webhook = await create({ eventTypes: ['*'] }, notesOnly);
      const refused = await post(`/v1/webhooks/${webhook.id}/redeliver`, { eventId: taskEvent });
      expectError(refused, 404, 'not_found');
      expect(refused.body.error.message).toBe('This webhook is not sent task.created events');
      expect(
        (await suite.t.app.get(WebhooksRepository).pageDeliveries(webhook.id, { limit: 25, offset: 0, filters: {} }))
          .total,
      ).toBe(0);
      await discard(webhook.id);
    });

    it('refuses to redeliver to a DISABLED endpoint (409)', async () => {
      const webhook = await create();
      await post(`/v1/webhooks/${webhook.id}`, { status: 'DISABLED' });
      expectError(
        await post(`/v1/webhooks/${webhook.id}/redeliver`, { eventId: await lastEventId() }),
        409,
        'invalid_state',
      );
    });

    it('refuses a deliveries cursor that is not one of that list', async () => {
      const webhook = await create();
      const cursorOf = (after: [string, string]) =>
        Buffer.from(
          JSON.stringify({ route: `/v1/webhooks/${webhook.id}/deliveries`, limit: 1, filters: [], after }),
        ).toString('base64url');
      const crafted = cursorOf(['2026-01-01T00:00:00+00:00', newId('note')]);
      expectError(
        await get(`/v1/webhooks/${webhook.id}/deliveries?cursor=${crafted}`),
        400,
        'invalid_parameter',
        'cursor',
      );
    });
  });

  describe('SSRF', () => {
    it.each(PRIVATE_URLS)('refuses %s on create and on update (422, param url)', async (url) => {
      expectError(await post('/v1/webhooks', { url, eventTypes: QUIET_TYPES }), 422, 'invalid_value', 'url');
      const webhook = await create();
      expectError(await post(`/v1/webhooks/${webhook.id}`, { url }), 422, 'invalid_value', 'url');
      expect((await stored(webhook.id))?.url).toBe(PUBLIC_URL);
    });

    it('refuses a host that does not resolve', async () => {
      expectError(
        await post('/v1/webhooks', { url: 'https://webhooks.invalid/x', eventTypes: QUIET_TYPES }),
        422,
        'invalid_value',
        'url',
      );
    });
  });

  describe('access', () => {
    const routes = (id: string): [string, string, object | undefined][] => [
      ['POST', '/v1/webhooks', { url: PUBLIC_URL, eventTypes: QUIET_TYPES }],
      ['GET', '/v1/webhooks', undefined],
      ['GET', `/v1/webhooks/${id}`, undefined],
      ['POST', `/v1/webhooks/${id}`, { description: 'x' }],
      ['DELETE', `/v1/webhooks/${id}`, undefined],
      ['POST', `/v1/webhooks/${id}/rotate-secret`, {}],
      ['GET', `/v1/webhooks/${id}/deliveries`, undefined],
      ['POST', `/v1/webhooks/${id}/redeliver`, { eventId: newId('event') }],
    ];
    const send = (method: string, path: string, body: object | undefined, headers: Record<string, string>) => {
      const request = suite.t.http[method.toLowerCase() as 'get' | 'post' | 'delete'](path).set(headers);
      return body ? request.send(body) : request;
    };

    it('answers 401 without a key on every route', async () => {
      const webhook = await create();
      for (const [method, path, body] of routes(webhook.id)) {
        const { Authorization: _key, ...withoutKey } = v1Headers(suite.ws.key);
        expectError(await send(method, path, body, withoutKey), 401, 'invalid_api_key');
      }
    });

    it('needs webhooks:read to read and webhooks:write to write (403)', async () => {
      const webhook = await create();
      const readOnly = (await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['webhooks:read'])).key;
      const writeOnly = (
        await createKey(suite.t.http, suite.ws.workspaceId, suite.ws.memberId, ['webhooks:write', 'tasks:read'])
      ).key;
      for (const [method, path, body] of routes(webhook.id)) {
        const refused = method === 'GET' ? writeOnly : readOnly;
        expectError(await send(method, path, body, v1Headers(refused)), 403, 'insufficient_scope');
      }
    });

    it('keeps workspaces apart: another workspace’s key gets 404 for the endpoint and never lists it', async () => {
      const webhook = await create();
      for (const [method, path, body] of routes(webhook.id).filter(([, path]) => path !== '/v1/webhooks')) {
        expectError(await send(method, path, body, v1Headers(suite.other.key)), 404, 'not_found');
      }
      const theirs = await get('/v1/webhooks', suite.other.key);
      expect(theirs.body.data.map((item: Endpoint) => item.id)).not.toContain(webhook.id);
      const { secret: _secret, ...shown } = webhook;
      expect((await get(`/v1/webhooks/${webhook.id}`)).body).toEqual(shown);
    });
  });

  /**
   * Deliveries to a receiver on this machine: an app allowed to reach private networks, on a
   * database of its own. The job queue lives in the database, and every app of the run works the
   * queue of the database it is on: on the shared one, the other suites' apps (refusing private
   * addresses) would take these attempts, and this app theirs.
   */
  describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
    let t: TestApp;
    let openapi: OpenApiValidator;
    let ws: TestWorkspace;
    let receiver: Server;
    let base: string;
    const received: Received[] = [];
    /** Answers by path: `/fail` 500, `/slow` 200 after a second, anything else 200. */
    const answer = (path: string): { status: number; delayMs: number } =>
      path.startsWith('/fail')
        ? { status: 500, delayMs: 0 }
        : { status: 200, delayMs: path.startsWith('/slow') ? 1000 : 0 };

    const postAs = (path: string, body: unknown) =>
      t.http
        .post(path)
        .set(v1Headers(ws.key))
        .send(body as object);
    const getAs = (path: string) => t.http.get(path).set(v1Headers(ws.key));
    const createTo = async (path: string, eventTypes = ['note.created']): Promise<Endpoint> => {
      const response = await postAs('/v1/webhooks', { url: `${base}${path}`, eventTypes });
      expect(response.status).toBe(200);
      return response.body as Endpoint;
    };
    const noteAs = async (): Promise<string> => {
      const response = await postAs('/v1/notes', { fields: { $title: 'Delivered' } });
      expect(response.status).toBe(200);
      return response.body.id as string;
    };
    const deliveriesOf = async (id: string): Promise<Delivery[]> => {
      const response = await getAs(`/v1/webhooks/${id}/deliveries`);
      expect(response.status).toBe(200);
      openapi.assert(response);
      return response.body.data as Delivery[];
    };
    const at = (path: string) => received.filter((request) => request.path === path);

    beforeAll(async () => {
      t = await createIsolatedTestApp('records_webhooks', {
        env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: RETRY_SCHEDULE },
      });
      openapi = new OpenApiValidator(t.document);
      ws = await createWorkspace(t.http);
      receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            path: request.url ?? '',
            headers: request.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
          const { status, delayMs } = answer(request.url ?? '');
          setTimeout(() => response.writeHead(status).end(), delayMs);
        });
      });
      receiver.listen(0, '127.0.0.1');
      await once(receiver, 'listening');
      base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    }, 60_000);

    afterAll(async () => {
      receiver?.closeAllConnections();
      receiver?.close();
      await t?.close();
    });

    it.each(PRIVATE_URLS)('accepts %s', async (url) => {
      const response = await postAs('/v1/webhooks', { url, eventTypes: ['task.created'] });
      expect(response.status).toBe(200);
      await t.http.delete(`/v1/webhooks/${response.body.id}`).set(v1Headers(ws.key)).expect(200);
    });

    it('holds attempts to WEBHOOK_ALLOWED_NETWORKS: elsewhere, public or private, an attempt FAILS naming it, and nothing connects', async () => {
      // Every test app's setting (createTestApp), on top of WEBHOOK_ALLOW_PRIVATE_NETWORKS=true here.
      expect(t.config.webhooks.allowedNetworks).toEqual([
        { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
        { address: '::1', prefix: 128, family: 'ipv6' },
      ]);
      const outside = ['https://198.51.100.7/hooks', 'http://10.0.0.1:8080/hooks', 'http://[2001:db8::7]/hooks'];
      const endpoints: Endpoint[] = [];
      for (const url of outside) {
        const created = await postAs('/v1/webhooks', { url, eventTypes: ['note.created'] });
        expect(created.status).toBe(200);
        endpoints.push(created.body as Endpoint);
      }
      await noteAs();
      for (const [index, endpoint] of endpoints.entries()) {
        await until(
          `the first attempt to ${outside[index]}`,
          async () => (await deliveriesOf(endpoint.id)).some((delivery) => delivery.status === 'FAILED'),
          10_000,
        );
        const failed = (await deliveriesOf(endpoint.id)).find((delivery) => delivery.attempt === 1)!;
        const host = new URL(outside[index]).hostname.replace(/^\[(.*)\]$/, '$1');
        expect(failed).toMatchObject({
          status: 'FAILED',
          responseStatus: null,
          durationMs: 0,
          error: `the host resolves to ${host}, outside the networks deliveries may reach (WEBHOOK_ALLOWED_NETWORKS)`,
          nextAttemptAt: expect.any(String),
        });
        await t.http.delete(`/v1/webhooks/${endpoint.id}`).set(v1Headers(ws.key)).expect(200);
      }
      // The test process's guard (test/support/loopback-only.ts) was asked for no connection outside loopback.
      expect(takeRefusedConnections()).toEqual([]);
    });

    it('delivers a created note signed, and lists the attempt PENDING while it is made, then SUCCEEDED', async () => {
      const webhook = await createTo('/slow');
      await noteAs();
      // The write's fan-out job makes the attempt (docs/api.md §13), which the receiver holds a second.
      await until('the fan-out to make the attempt', async () => (await deliveriesOf(webhook.id)).length === 1, 10_000);
      const [pending] = await deliveriesOf(webhook.id);
      expect(pending).toMatchObject({
        attempt: 1,
        status: 'PENDING',
        responseStatus: null,
        attemptedAt: null,
        error: null,
      });
      expect(Date.parse(pending.nextAttemptAt!)).toBeLessThanOrEqual(Date.now());

      await until(
        'the attempt to succeed',
        async () => (await deliveriesOf(webhook.id))[0]?.status === 'SUCCEEDED',
        10_000,
      );
      const [succeeded] = await deliveriesOf(webhook.id);
      expect(succeeded).toEqual({
        eventId: pending.eventId,
        attempt: 1,
        status: 'SUCCEEDED',
        responseStatus: 200,
        durationMs: expect.any(Number),
        error: null,
        attemptedAt: expect.any(String),
        nextAttemptAt: null,
      });
      const [request] = at('/slow');
      expect(request.headers['webhook-id']).toBe(pending.eventId);
      expect(
        new Webhook(webhook.secret!).verify(request.body, request.headers as Record<string, string>),
      ).toMatchObject({
        id: pending.eventId,
        type: 'note.created',
      });
    });

    it('lists a failed attempt FAILED with the receiver’s status and when the next is due, and that next attempt PENDING', async () => {
      const webhook = await createTo('/fail');
      await noteAs();
      await until('the first attempt to fail', async () => (await deliveriesOf(webhook.id)).length === 2, 10_000);
      const [next, failed] = await deliveriesOf(webhook.id);
      expect(failed).toMatchObject({
        attempt: 1,
        status: 'FAILED',
        responseStatus: 500,
        error: 'the receiver answered 500',
        nextAttemptAt: expect.any(String),
      });
      expect(next).toMatchObject({
        eventId: failed.eventId,
        attempt: 2,
        status: 'PENDING',
        attemptedAt: null,
        nextAttemptAt: failed.nextAttemptAt,
      });
      await t.http.delete(`/v1/webhooks/${webhook.id}`).set(v1Headers(ws.key)).expect(200);
    });

    it('makes no further attempt to an endpoint deleted while its next attempt is due', async () => {
      const deleted = await createTo('/fail-deleted');
      const kept = await createTo('/fail-kept');
      await noteAs();
      await until(
        'both first attempts to fail',
        async () => (await deliveriesOf(deleted.id)).length === 2 && (await deliveriesOf(kept.id)).length === 2,
        10_000,
      );
      await t.http.delete(`/v1/webhooks/${deleted.id}`).set(v1Headers(ws.key)).expect(200);
      // The kept endpoint's second attempt is due when the deleted one's was (RETRY_SCHEDULE, ± its jitter).
      await until('the kept endpoint’s second attempt', () => at('/fail-kept').length === 2, 10_000);
      await sleep(1500);
      expect(at('/fail-deleted')).toHaveLength(1);
      expect(
        await t.app.get(WebhooksRepository).pageDeliveries(deleted.id, { limit: 25, offset: 0, filters: {} }),
      ).toEqual({ rows: [], total: 0, next: null });
      await t.http.delete(`/v1/webhooks/${kept.id}`).set(v1Headers(ws.key)).expect(200);
    });

    it('redelivers an event now: the receiver gets the same webhook-id again, listed as the next attempt', async () => {
      const webhook = await createTo('/again');
      await noteAs();
      await until('the first delivery', () => at('/again').length === 1, 10_000);
      const eventId = at('/again')[0].headers['webhook-id'] as string;
      await until(
        'the first attempt to be recorded',
        async () => (await deliveriesOf(webhook.id))[0]?.status === 'SUCCEEDED',
        10_000,
      );

      const redelivered = await postAs(`/v1/webhooks/${webhook.id}/redeliver`, { eventId });
      expect(redelivered.status).toBe(200);
      openapi.assert(redelivered);
      expect(redelivered.body).toMatchObject({ eventId, attempt: 2, status: 'PENDING', attemptedAt: null });
      await until('the redelivery', () => at('/again').length === 2, 10_000);
      expect(at('/again').map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);
      await until(
        'the redelivery to be recorded',
        async () => (await deliveriesOf(webhook.id))[0]?.status === 'SUCCEEDED',
        10_000,
      );
      expect((await deliveriesOf(webhook.id)).map(({ attempt, status }) => ({ attempt, status }))).toEqual([
        { attempt: 2, status: 'SUCCEEDED' },
        { attempt: 1, status: 'SUCCEEDED' },
      ]);
    });

    it('pages the deliveries newest first, along cursors', async () => {
      const webhook = await createTo('/paged');
      for (let i = 0; i < 3; i += 1) await noteAs();
      await until('three deliveries', () => at('/paged').length === 3, 10_000);
      const all = await deliveriesOf(webhook.id);
      const first = await getAs(`/v1/webhooks/${webhook.id}/deliveries?limit=2`);
      expect(first.body).toMatchObject({ totalCount: 3, nextCursor: expect.any(String) });
      const rest = await getAs(`/v1/webhooks/${webhook.id}/deliveries?cursor=${first.body.nextCursor}`);
      expect(rest.status).toBe(200);
      expect([...first.body.data, ...rest.body.data].map((delivery: Delivery) => delivery.eventId)).toEqual(
        all.map((delivery) => delivery.eventId),
      );
      expect(rest.body.nextCursor).toBeNull();
    });

    it('sends a * endpoint the events its key may read, and no other', async () => {
      const readsNotesAndMeetings = (
        await createKey(t.http, ws.workspaceId, ws.memberId, ['notes:read', 'meetings:read', 'webhooks:write'])
      ).key;
      const asThatKey = (path: string, body: object) =>
        t.http.post(path).set(v1Headers(readsNotesAndMeetings)).send(body);
      const created = await asThatKey('/v1/webhooks', { url: `${base}/unused`, eventTypes: ['*'] });
      expect([created.status, created.body.eventTypes]).toEqual([200, ['*']]);
      openapi.assert(created);
      const webhook = created.body as Endpoint;
      // The receiver verifies signatures with the endpoint's secret, known once the endpoint is made.
      const receiver = await WebhookReceiver.start(webhook.secret!);
      try {
        const moved = await asThatKey(`/v1/webhooks/${webhook.id}`, { url: receiver.url });
        expect([moved.status, moved.body.error]).toEqual([200, undefined]);
        const noteId = await noteAs();
        const task = await postAs('/v1/tasks', {
          fields: { $title: 'Not for this endpoint', $status: 'TODO' },
          relationships: { $assignedTo: ws.memberId },
        });
        expect([task.status, task.body.error]).toEqual([200, undefined]);
        await until(
          'both events’ attempts',
          async () => {
            const attempts = await deliveriesOf(webhook.id);
            return attempts.length === 2 && attempts.every((delivery) => delivery.status !== 'PENDING');
          },
          10_000,
        );
        expect(receiver.received.map((hook) => [hook.type, hook.payload.entityId])).toEqual([['note.created', noteId]]);
        const attempts = (await deliveriesOf(webhook.id)).map(({ status, error }) => ({ status, error }));
        expect(attempts.sort((a, b) => a.status.localeCompare(b.status))).toEqual([
          { status: 'FAILED', error: "the endpoint's API key may not read task.created events" },
          { status: 'SUCCEEDED', error: null },
        ]);
        expect(at('/unused')).toEqual([]);
      } finally {
        await receiver.close();
        await t.http.delete(`/v1/webhooks/${webhook.id}`).set(v1Headers(ws.key)).expect(200);
      }
    });

    it('signs with the old and the new secret after a rotation', async () => {
      const webhook = await createTo('/rotated');
      const rotated = await postAs(`/v1/webhooks/${webhook.id}/rotate-secret`, {});
      await noteAs();
      await until('a delivery', () => at('/rotated').length === 1, 10_000);
      const [request] = at('/rotated');
      expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
      for (const secret of [webhook.secret!, rotated.body.secret as string]) {
        expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
      }
    });
  });
});
