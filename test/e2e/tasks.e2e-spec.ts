import { apiSuite } from '../support/api-suite';
import { expectError } from '../support/errors';
import { createMember } from '../support/factories';
import { adminHeaders } from '../support/test-app';

describe('tasks', () => {
  const suite = apiSuite();
  const { post, get } = suite;
  const task = (overrides: Record<string, unknown> = {}) => ({
    fields: { $title: 'Call back', $status: 'TODO' },
    relationships: { $assignedTo: suite.ws.memberId },
    ...overrides,
  });

  it('creates a task with every system field and defaults $createdBy to the caller', async () => {
    const account = (await post('/v1/accounts', { fields: { $name: 'Acme' } })).body.id;
    const response = await post('/v1/tasks', {
      fields: { $title: 'Call', $status: 'IN_PROGRESS', $description: 'notes', $dueAt: '2030-01-02T03:04:05+02:00' },
      relationships: { $assignedTo: [suite.ws.memberId], $account: account },
    });
    expect(response.status).toBe(200);
    suite.openapi.assert(response);
    expect(response.body.fields).toEqual({
      $title: { value: 'Call', valueType: 'TEXT' },
      $status: { value: 'IN_PROGRESS', valueType: 'SINGLE_SELECT' },
      $description: { value: 'notes', valueType: 'MARKDOWN' },
      $dueAt: { value: '2030-01-02T01:04:05.000Z', valueType: 'DATETIME' },
    });
    expect(response.body.relationships).toEqual({
      $assignedTo: { cardinality: 'has_one', objectType: 'member', values: [suite.ws.memberId] },
      $account: { cardinality: 'has_one', objectType: 'account', values: [account] },
      $opportunity: { cardinality: 'has_one', objectType: 'opportunity', values: [] },
      $createdBy: { cardinality: 'has_one', objectType: 'member', values: [suite.ws.memberId] },
      $note: { cardinality: 'has_one', objectType: 'note', values: [] },
    });
    expect((await get(`/v1/accounts/${account}`)).body.relationships.$task.values).toEqual([response.body.id]);
  });

  it('documents the create and update bodies it accepts and refuses', () => {
    const { openapi } = suite;
    openapi.assertRequest('POST', '/v1/tasks', task());
    openapi.assertRequest('POST', '/v1/tasks/task_x', {
      fields: { $status: 'COMPLETE' },
      relationships: { $account: { replace: 'acc_x' } },
    });
    expect(
      openapi.refusesRequest('POST', '/v1/tasks', { fields: { $title: 'x' }, relationships: { $assignedTo: 'mem_x' } }),
    ).toBe(true);
    expect(openapi.refusesRequest('POST', '/v1/tasks', task({ fields: { $title: 'x', $status: 'DONE' } }))).toBe(true);
    expect(openapi.refusesRequest('POST', '/v1/tasks', { ...task(), extra: 1 })).toBe(true);
    expect(openapi.refusesRequest('POST', '/v1/tasks/task_x', { relationships: { $account: { move: 'acc_x' } } })).toBe(
      true,
    );
    openapi.assertRequest('POST', '/v1/meetings', {
      fields: { $title: 'M', $startDate: '2020-01-01T00:00:00Z', $endDate: '2020-01-01T01:00:00Z' },
      autoCreateRecords: true,
    });
    expect(openapi.refusesRequest('POST', '/v1/meetings/mtg_x', { fields: { $title: 'x' } })).toBe(true);
    openapi.assertRequest('POST', '/v1/notes/note_x', {
      relationships: { $account: { add: ['acc_x'], remove: 'acc_y' } },
    });
    expect(
      openapi.refusesRequest('POST', '/v1/notes/note_x', { relationships: { $account: { replace: 'acc_x' } } }),
    ).toBe(true);
  });

  it('accepts every status on create and update', async () => {
    for (const status of ['TODO', 'IN_PROGRESS', 'COMPLETE', 'CANCELLED']) {
      const created = await post('/v1/tasks', task({ fields: { $title: 's', $status: status } }));
      expect(created.body.fields.$status.value).toBe(status);
      const updated = await post(`/v1/tasks/${created.body.id}`, { fields: { $status: 'TODO' } });
      expect(updated.body.fields.$status.value).toBe('TODO');
    }
    expectError(
      await post('/v1/tasks', task({ fields: { $title: 's', $status: 'DONE' } })),
      400,
      'invalid_type',
      'fields.$status',
    );
  });

  it('requires $title, $status and $assignedTo, a member of this workspace', async () => {
    expectError(
      await post('/v1/tasks', task({ fields: { $status: 'TODO' } })),
      422,
      'parameter_missing',
      'fields.$title',
    );
    expectError(await post('/v1/tasks', task({ fields: { $title: 'x' } })), 422, 'parameter_missing', 'fields.$status');
    expectError(
      await post('/v1/tasks', task({ relationships: {} })),
      422,
      'parameter_missing',
      'relationships.$assignedTo',
    );
    expectError(
      await post('/v1/tasks', task({ relationships: { $assignedTo: suite.other.memberId } })),
      422,
      'relationship_entity_missing',
      'relationships.$assignedTo',
    );
    const second = await createMember(suite.t.http, suite.ws.workspaceId);
    expectError(
      await post('/v1/tasks', task({ relationships: { $assignedTo: [suite.ws.memberId, second.id] } })),
      422,
      'invalid_value',
      'relationships.$assignedTo',
    );
  });

  it('refuses $note on create and update, and $createdBy on update', async () => {
    const created = (await post('/v1/tasks', task())).body;
    const note = (await post('/v1/notes', { fields: { $title: 'n' } })).body.id;
    expectError(
      await post('/v1/tasks', task({ relationships: { $assignedTo: suite.ws.memberId, $note: note } })),
      422,
      'read_only_field',
      'relationships.$note',
    );
    expectError(
      await post(`/v1/tasks/${created.id}`, { relationships: { $note: { replace: note } } }),
      422,
      'read_only_field',
      'relationships.$note',
    );
    expectError(
      await post(`/v1/tasks/${created.id}`, { relationships: { $createdBy: { replace: suite.ws.memberId } } }),
      422,
      'read_only_field',
      'relationships.$createdBy',
    );
  });

  it('replaces, adds and removes on update; replace cannot be combined', async () => {
    const member = await createMember(suite.t.http, suite.ws.workspaceId);
    const created = (await post('/v1/tasks', task())).body;
    const replaced = await post(`/v1/tasks/${created.id}`, { relationships: { $assignedTo: { replace: member.id } } });
    expect(replaced.status).toBe(200);
    suite.openapi.assert(replaced);
    expect(replaced.body.relationships.$assignedTo.values).toEqual([member.id]);
    const account = (await post('/v1/accounts', { fields: { $name: 'Swap' } })).body.id;
    const added = await post(`/v1/tasks/${created.id}`, { relationships: { $account: { add: account } } });
    expect(added.body.relationships.$account.values).toEqual([account]);
    const removed = await post(`/v1/tasks/${created.id}`, { relationships: { $account: { remove: account } } });
    expect(removed.body.relationships.$account.values).toEqual([]);
    expectError(
      await post(`/v1/tasks/${created.id}`, { relationships: { $account: { replace: account, add: account } } }),
      400,
      'invalid_operation',
    );
  });

  it('takes custom relationships by bare slug once the operator adds them', async () => {
    const added = await suite.t.http
      .post(`/admin/v1/workspaces/${suite.ws.workspaceId}/object-types/task/relationships`)
      .set(adminHeaders())
      .send({ key: 'reviewer', label: 'Reviewer', cardinality: 'HAS_ONE', objectType: 'contact' });
    expect(added.status).toBe(200);
    expect(added.body.relationshipDefinitions.reviewer).toMatchObject({
      objectType: 'contact',
      cardinality: 'HAS_ONE',
    });
    const contact = (await post('/v1/contacts', { fields: { $name: { firstName: 'Rita' } } })).body.id;
    const created = await post(
      '/v1/tasks',
      task({ relationships: { $assignedTo: suite.ws.memberId, reviewer: contact } }),
    );
    expect(created.status).toBe(200);
    expect(created.body.relationships.reviewer).toEqual({
      cardinality: 'has_one',
      objectType: 'contact',
      values: [contact],
    });
    const inverse = await get(`/v1/contacts/${contact}`);
    expect(inverse.body.relationships.task_reviewer.values).toEqual([created.body.id]);
    const definitions = await get('/v1/tasks/definitions');
    suite.openapi.assert(definitions);
    expect(definitions.body.relationshipDefinitions.reviewer).toBeDefined();
    expect(definitions.body.relationshipDefinitions.$note.readOnly).toBe(true);
  });
});
