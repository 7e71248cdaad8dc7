/**
 * Compiled, never run (types.spec.ts): what a caller gets typed, and what must not compile. Each
 * `@ts-expect-error TSnnnn \`text\`` names the error the next line must give, and a part of its
 * message; the spec checks that the line gives exactly that error.
 */
import { createRecordsClient, type RecordsClient, RecordsApiError, type Schemas, type WebhookEvent } from '../src';

type IsAny<T> = 0 extends 1 & T ? true : false;
/** Compiles only for a value whose type is not `any`. */
function typed<T>(value: IsAny<T> extends true ? never : T): T {
  return value;
}

export async function typedCalls(api: RecordsClient): Promise<void> {
  const note = await api.post('/v1/notes', {
    body: { fields: { $title: 'Kick-off' }, relationships: { $account: [] } },
  });
  const envelope: Schemas['EntityEnvelopeDto'] = typed(note);
  typed(envelope.fields.$title?.value);
  typed(await api.get('/v1/notes/{id}', { params: { path: { id: note.id } } }));
  typed(await api.get('/v1/auth/validate'));
  for await (const page of api.pages('/v1/tasks', { params: { query: { filters: { '$title[startsWith]': 'Q3' } } } })) {
    const nextCursor: string | null = typed(page.nextCursor);
    typed(page.data[0]?.fields);
    typed(nextCursor);
  }
  for await (const feed of api.pages('/v1/events')) typed(feed.data[0]?.type);
  const file = await api.post('/v1/files', { body: { filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1 } });
  const uploadUrl: string = typed(file.uploadUrl);
  typed(uploadUrl);
  await api.post('/v1/notes', {
    params: { header: { 'Idempotency-Key': 'once' } },
    body: { fields: { $title: 'Once' } },
  });
  // Preconditions: a read sent with its ETag answers undefined while the note is as the tag says.
  const etag = typed(api.etagOf(note));
  const unlessUnchanged = await api.getIfChanged('/v1/notes/{id}', etag!, { params: { path: { id: note.id } } });
  // @ts-expect-error TS18048 `possibly 'undefined'` a conditional read may answer nothing
  typed(unlessUnchanged.fields);
  typed(unlessUnchanged?.fields);
  typed(await api.post('/v1/notes/{id}', { params: { path: { id: note.id } }, ifMatch: etag, body: { fields: {} } }));
  typed(await api.delete('/v1/webhooks/{id}', { params: { path: { id: 'whk_1' } }, ifMatch: '*' }));
  // A page's nextCursor is taken as the cursor as it is, null included.
  const first = await api.get('/v1/notes', { params: { query: { limit: 5 } } });
  typed(await api.get('/v1/notes', { params: { query: { cursor: first.nextCursor } } }));
  for await (const task of api.items('/v1/tasks')) typed(task.fields);
  for await (const event of api.items('/v1/events')) {
    const received: WebhookEvent = typed(event);
    typed(received.type);
  }
}

/** The operator adds a member without a role: the service defaults it to `member`. */
export async function operatorCalls(workspaceId: string): Promise<void> {
  const operator = createRecordsClient({ baseUrl: 'http://localhost:3000', apiKey: 'admin-token', timeoutMs: 5_000 });
  typed(
    await operator.post('/admin/v1/workspaces/{workspaceId}/members', {
      params: { path: { workspaceId } },
      body: { email: 'ada@example.com' },
    }),
  );
}

/** A webhook receiver types the body it was sent. */
export function receivedEvent(body: string): string {
  const event = JSON.parse(body) as WebhookEvent;
  return `${event.type} ${event.id}`;
}

/** Create, update, read and list each resource, typed throughout, without a cast. */
export async function everyResource(api: RecordsClient, memberId: string): Promise<void> {
  const account = await api.post('/v1/accounts', { body: { fields: { $name: 'Acme' } } });
  const contact = await api.post('/v1/contacts', {
    body: { fields: { $email: ['ada@acme.test'] }, relationships: { $account: account.id } },
  });
  const deal = await api.post('/v1/opportunities', {
    body: { fields: { $name: 'Renewal', $stage: 'LEAD' }, relationships: { $account: account.id } },
  });
  const task = await api.post('/v1/tasks', {
    body: { fields: { $title: 'Call', $status: 'TODO' }, relationships: { $assignedTo: memberId } },
  });
  const meeting = await api.post('/v1/meetings', {
    body: { fields: { $title: 'Kick-off', $startDate: '2026-03-02T09:00:00Z', $endDate: '2026-03-02T10:00:00Z' } },
  });
  const list = await api.post('/v1/lists', {
    body: { fields: { $name: 'Key accounts', $objectType: 'account' }, relationships: { $accounts: [account.id] } },
  });
  const project = await api.post('/v1/objects/{entitySlug}/values', {
    params: { path: { entitySlug: 'project' } },
    body: { fields: { name: 'Website' } },
  });
  const hook = await api.post('/v1/webhooks', {
    body: { url: 'https://hooks.example.com/records', eventTypes: ['note.created'] },
  });

  typed(
    await api.post('/v1/accounts/{id}', {
      params: { path: { id: account.id } },
      body: { fields: { $name: 'Acme Ltd' } },
    }),
  );
  typed(
    await api.post('/v1/contacts/{id}', {
      params: { path: { id: contact.id } },
      body: { relationships: { $account: { replace: account.id } } },
    }),
  );
  typed(
    await api.post('/v1/opportunities/{id}', {
      params: { path: { id: deal.id } },
      body: { fields: { $stage: 'WON' } },
    }),
  );
  typed(
    await api.post('/v1/tasks/{id}', { params: { path: { id: task.id } }, body: { fields: { $status: 'COMPLETE' } } }),
  );
  typed(
    await api.post('/v1/meetings/{id}', {
      params: { path: { id: meeting.id } },
      body: { fields: { $privacySetting: 'METADATA' } },
    }),
  );
  typed(
    await api.post('/v1/lists/{id}', {
      params: { path: { id: list.id } },
      body: { relationships: { $accounts: { remove: account.id } } },
    }),
  );
  typed(
    await api.post('/v1/objects/{entitySlug}/values/{id}', {
      params: { path: { entitySlug: 'project', id: project.id } },
      body: { fields: { name: 'Web' } },
    }),
  );
  typed(await api.post('/v1/webhooks/{id}', { params: { path: { id: hook.id } }, body: { status: 'DISABLED' } }));
  typed(await api.delete('/v1/webhooks/{id}', { params: { path: { id: hook.id } } }));

  typed(await api.get('/v1/contacts/{id}', { params: { path: { id: contact.id } } }));
  typed(await api.get('/v1/members/{id}', { params: { path: { id: memberId } } }));
  typed(await api.get('/v1/lists/{listId}/accounts', { params: { path: { listId: list.id } } }));
  for (const path of [
    '/v1/accounts',
    '/v1/contacts',
    '/v1/opportunities',
    '/v1/tasks',
    '/v1/meetings',
    '/v1/lists',
    '/v1/members',
    '/v1/files',
    '/v1/webhooks',
  ] as const) {
    for await (const page of api.pages(path)) typed(page.data[0]?.id);
  }
}

/** A field value read back has the shape its `valueType` names, once checked: no cast. */
export function fieldValuesByType(envelope: Schemas['EntityEnvelopeDto']): void {
  for (const field of Object.values(envelope.fields)) {
    // @ts-expect-error TS2339 `Property 'firstName' does not exist` a value's shape is known once its valueType is
    typed(field.value?.firstName);
    if (field.valueType === 'FULL_NAME') {
      const firstName: string | undefined = typed(field.value?.firstName);
      typed(firstName);
    } else if (field.valueType === 'ADDRESS') {
      const city: string | undefined = typed(field.value?.city);
      typed(city);
    }
  }
}

export async function refusedCalls(api: RecordsClient, error: RecordsApiError): Promise<void> {
  // @ts-expect-error TS2353 `'ifMatch' does not exist` a create has no precondition
  await api.post('/v1/notes', { ifMatch: '"v1"', body: { fields: { $title: 'T' } } });
  // @ts-expect-error TS2345 `'"/v1/notes"' is not assignable` a page has no ETag
  await api.getIfChanged('/v1/notes', '"v1"');
  // @ts-expect-error TS2322 `Property '$title' is missing` a note's title is required
  await api.post('/v1/notes', { body: { fields: {} } });
  // @ts-expect-error TS2322 `Type 'number' is not assignable to type 'string'` a title is a string
  await api.post('/v1/notes', { body: { fields: { $title: 42 } } });
  await api.post('/v1/tasks', {
    // @ts-expect-error TS2322 `Type '"DONE"' is not assignable` a status is one of the task statuses
    body: { fields: { $title: 'T', $status: 'DONE' }, relationships: { $assignedTo: 'mem_1' } },
  });
  // @ts-expect-error TS2322 `Property '$assignedTo' is missing` a task's assignee is required
  await api.post('/v1/tasks', { body: { fields: { $title: 'T', $status: 'TODO' }, relationships: {} } });
  // @ts-expect-error TS2353 `'color' does not exist` a body member the service refuses (400 unknown_field)
  await api.post('/admin/v1/workspaces', { body: { name: 'Acme', color: 'red' } });
  // @ts-expect-error TS2353 `'folder' does not exist` on a /v1 body as on the operator's
  await api.post('/v1/files', { body: { filename: 'a.txt', mimeType: 'text/plain', sizeBytes: 1, folder: 'x' } });
  // @ts-expect-error TS2322 `Type 'string' is not assignable to type 'number'` a size is a number
  await api.post('/v1/files', { body: { filename: 'a.txt', mimeType: 'text/plain', sizeBytes: '1' } });
  // @ts-expect-error TS2554 `Expected 2 arguments, but got 1` the path's id is required
  await api.get('/v1/notes/{id}');
  // @ts-expect-error TS2345 `'"/v1/notez"'` no such path
  await api.get('/v1/notez');
  // @ts-expect-error TS2345 `'"/v1/notes"'` no DELETE on notes
  await api.delete('/v1/notes', {});
  // @ts-expect-error TS2322 `Type 'number' is not assignable to type 'string'` filter values are strings
  await api.get('/v1/notes', { params: { query: { filters: { '$title[startsWith]': 5 } } } });
  // @ts-expect-error TS2322 `Type 'string' is not assignable to type 'number'` a limit is a number
  await api.get('/v1/notes', { params: { query: { limit: '5' } } });
  // @ts-expect-error TS2322 `'Service-Version'` the client sends it itself
  await api.get('/v1/notes', { params: { header: { 'Service-Version': '2026-03-01' } } });
  await api.post('/v1/notes', {
    // @ts-expect-error TS2353 `'Service-Version'` the client sends it itself, beside an Idempotency-Key too
    params: { header: { 'Service-Version': '2026-03-01' } },
    body: { fields: { $title: 'T' } },
  });
  // @ts-expect-error TS2353 `'parseAs' does not exist` answers are JSON, and read so
  await api.get('/v1/auth/validate', { parseAs: 'text' });
  // @ts-expect-error TS2345 `parameter of type 'PagedPath'` the key validation is no page
  api.pages('/v1/auth/validate');
  // @ts-expect-error TS2339 `Property 'workspace' does not exist` the key validation has no such member
  typed((await api.get('/v1/auth/validate')).workspace);
  // @ts-expect-error TS2367 `'"not_a_code"'` error codes are the catalogue's
  if (error.code === 'not_a_code') return;
}

/** A batch's results narrow on `status`: the record of a success, the error of a failure, without a cast. */
export async function batchResults(api: RecordsClient): Promise<void> {
  const batch = await api.post('/v1/contacts/batch/create', {
    body: { inputs: [{ fields: { $email: ['ada@acme.test'] } }] },
  });
  for (const result of batch.results) {
    if (result.status === 200) typed(result.data.id);
    else typed(result.error.code);
  }
  const first = batch.results[0];
  // @ts-expect-error TS2339 `Property 'data' does not exist`
  typed(first.data);
  const upserted = await api.post('/v1/contacts/upsert', {
    body: { matchOn: 'externalId', externalId: 'crm-1042', fields: {} },
  });
  const outcome: 'created' | 'updated' | 'unchanged' = typed(upserted.outcome);
  typed(outcome);
}
