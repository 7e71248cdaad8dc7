import { randomBytes } from 'node:crypto';
import { ID_PREFIXES } from '../../src/common/ids';
import {
  PROJECT_CREATE_EXAMPLE,
  PROJECT_SLUG,
  PROJECT_TYPE_EXAMPLE,
} from '../../src/modules/objects/project-type.example';
import { EXAMPLE_WEBHOOK_URL } from '../../src/modules/webhooks/webhooks.dto';
import type TestAgent from 'supertest/lib/agent';
import { createKey, createMember, createWorkspace, TestWorkspace } from '../support/factories';
import { adminHeaders, TEST_ADMIN_TOKEN, v1Headers } from '../support/test-app';
import { uploadFile } from '../support/transcripts';

/** Kinds of ids a request can carry, with the prefix of each: all but the definitions' own. */
const { field, relationship, option, ...REQUEST_ID_PREFIXES } = ID_PREFIXES;
export const ID_KINDS = REQUEST_ID_PREFIXES;
export type IdKind = keyof typeof ID_KINDS;

/** A and B take the generated requests; P only the prototype-key probes (see probeWorkspace). */
export type WorkspaceName = 'A' | 'B' | 'P';

/** One seeded workspace: its keys, ids of every kind, and strings that only its records hold. */
export interface WorkspaceWorld {
  name: WorkspaceName;
  workspace: TestWorkspace;
  /** A key of the admin member that may only read notes: reaches the scope check and stops there. */
  limitedKey: string;
  /** Ids by kind. `apiKey` holds only spare keys, so that the fuzzer may revoke them. */
  ids: Record<IdKind, string[]>;
  /** Slug of this workspace's custom object type. */
  customSlug: string;
  /** Strings that only this workspace's data holds: its ids, emails, slug and a marker in its texts. */
  privateTokens: string[];
}

export interface FuzzWorld {
  A: WorkspaceWorld;
  B: WorkspaceWorld;
  P: WorkspaceWorld;
  adminToken: string;
  /** Field keys of every type of both workspaces, system (`$…`) and custom. */
  fieldKeys: string[];
  /** Relationship keys of every type, list member keys included. */
  relationshipKeys: string[];
}

/** System types whose definitions are served under `/v1/{path}/definitions`. */
const TYPES_WITH_DEFINITIONS = ['notes', 'tasks', 'accounts', 'contacts', 'opportunities'];

/** Keys the definitions endpoints do not list: meeting, list and member fields, list member keys. */
const UNLISTED_FIELD_KEYS = [
  '$title',
  '$startDate',
  '$endDate',
  '$attendeeEmails',
  '$description',
  '$meetingUrl',
  '$organizerEmail',
  '$privacySetting',
  '$name',
  '$objectType',
  '$email',
  '$role',
];
const UNLISTED_RELATIONSHIP_KEYS = ['$transcript', '$accounts', '$contacts', '$opportunities', '$meeting'];

async function ok<T>(
  response: Promise<{ status: number; body: unknown }> | { status: number; body: unknown },
  what: string,
): Promise<T> {
  const awaited = await response;
  if (awaited.status !== 200)
    throw new Error(`fuzz seed: ${what} failed: ${awaited.status} ${JSON.stringify(awaited.body)}`);
  return awaited.body as T;
}

function customTypeDefinition(slug: string, marker: string): Record<string, unknown> {
  return {
    slug,
    label: `Project ${marker}`,
    fields: {
      title: { label: 'Title', valueType: 'TEXT' },
      score: { label: 'Score', valueType: 'NUMBER' },
      budget: { label: 'Budget', valueType: 'CURRENCY', typeConfiguration: { currency: 'EUR' } },
      done: { label: 'Done', valueType: 'CHECKBOX' },
      due: { label: 'Due', valueType: 'DATETIME' },
      mail: { label: 'Mail', valueType: 'EMAIL', typeConfiguration: { multipleValues: true } },
      phone: { label: 'Phone', valueType: 'TELEPHONE' },
      site: { label: 'Site', valueType: 'URL', unique: true },
      lead: { label: 'Lead', valueType: 'FULL_NAME' },
      office: { label: 'Office', valueType: 'ADDRESS' },
      brief: { label: 'Brief', valueType: 'MARKDOWN' },
      handle: { label: 'Handle', valueType: 'SOCIAL_HANDLE', typeConfiguration: { handleService: 'TWITTER' } },
      phase: {
        label: 'Phase',
        valueType: 'SINGLE_SELECT',
        typeConfiguration: { options: [{ id: 'plan', label: 'Plan' }, { label: 'Build' }] },
      },
      tags: {
        label: 'Tags',
        valueType: 'MULTI_SELECT',
        typeConfiguration: { options: [{ label: 'Red' }, { label: 'Blue' }] },
      },
    },
    relationships: {
      client: { label: 'Client', cardinality: 'HAS_ONE', objectType: 'account' },
      people: { label: 'People', cardinality: 'HAS_MANY', objectType: 'contact' },
      parent: { label: 'Parent', cardinality: 'HAS_ONE', objectType: slug, inverseKey: 'children' },
    },
  };
}

/**
 * A workspace with records of every kind, linked to each other as clients link them: two accounts,
 * a contact, an opportunity, a note, a task, a completed transcript and a pending file, a private
 * meeting with that transcript, a list, a custom type with a record, a second member and a spare key.
 */
async function seedWorkspace(http: TestAgent, name: WorkspaceName): Promise<WorkspaceWorld> {
  const marker = `fz${name}${randomBytes(6).toString('hex')}`;
  const workspace = await createWorkspace(http);
  const headers = v1Headers(workspace.key);
  const post = (path: string, body: unknown, what: string) =>
    ok<{ id: string }>(
      http
        .post(path)
        .set(headers)
        .send(body as object),
      what,
    );
  const member = await createMember(http, workspace.workspaceId, { firstName: marker, role: 'member' });
  const limited = await createKey(http, workspace.workspaceId, workspace.memberId, ['notes:read']);
  const spare = await createKey(http, workspace.workspaceId, member.id, ['notes:read']);
  const customSlug = `fz_${name.toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await ok(
    http
      .post(`/admin/v1/workspaces/${workspace.workspaceId}/object-types`)
      .set(adminHeaders())
      .send(customTypeDefinition(customSlug, marker)),
    'create custom type',
  );

  const account = await post(
    '/v1/accounts',
    { fields: { $name: `${marker} Acme`, $website: `https://${marker}.example.com` } },
    'account',
  );
  const otherAccount = await post(
    '/v1/accounts',
    { fields: { $name: `${marker} Beta` }, relationships: { $owner: member.id } },
    'account',
  );
  const contact = await post(
    '/v1/contacts',
    {
      fields: { $name: { firstName: marker }, $email: `${marker}@${marker}.example.com` },
      relationships: { $account: account.id },
    },
    'contact',
  );
  const opportunity = await post(
    '/v1/opportunities',
    { fields: { $name: `${marker} deal`, $stage: 'LEAD', $amount: 10 }, relationships: { $account: account.id } },
    'opportunity',
  );
  const note = await post(
    '/v1/notes',
    {
      fields: { $title: `${marker} note`, $content: marker },
      relationships: { $account: account.id, $opportunity: opportunity.id },
    },
    'note',
  );
  const task = await post(
    '/v1/tasks',
    {
      fields: { $title: `${marker} task`, $status: 'TODO' },
      relationships: { $assignedTo: member.id, $account: account.id },
    },
    'task',
  );
  const transcript = await uploadFile(http, workspace.key, {
    content: `WEBVTT\n\n00:00.000 --> 00:01.000\n${marker}\n`,
  });
  const pending = await uploadFile(http, workspace.key, { complete: false });
  const meeting = await post(
    '/v1/meetings',
    {
      fields: {
        $title: `${marker} meeting`,
        $startDate: '2025-01-02T03:04:05Z',
        $endDate: '2025-01-02T04:04:05Z',
        $attendeeEmails: [`${marker}@${marker}.example.com`],
        $privacySetting: 'METADATA',
      },
      relationships: { $transcript: transcript },
    },
    'meeting',
  );
  const list = await post(
    '/v1/lists',
    {
      fields: { $name: `${marker} list`, $objectType: 'account' },
      relationships: { $accounts: [account.id, otherAccount.id] },
    },
    'list',
  );
  const record = await post(
    `/v1/objects/${customSlug}/values`,
    { fields: { title: marker, score: 1, phase: 'plan' }, relationships: { client: account.id, people: [contact.id] } },
    'custom record',
  );
  // Disabled, so that the records the fuzzer writes make no delivery attempts unless it enables it.
  const webhook = await post(
    '/v1/webhooks',
    { url: EXAMPLE_WEBHOOK_URL, eventTypes: ['note.created'], description: marker },
    'webhook',
  );
  await post(`/v1/webhooks/${webhook.id}`, { status: 'DISABLED' }, 'disable webhook');
  const [event] = (await ok<{ data: { id: string }[] }>(http.get('/v1/events?limit=1').set(headers), 'read the feed'))
    .data;
  const ids: Record<IdKind, string[]> = {
    account: [account.id, otherAccount.id],
    contact: [contact.id],
    opportunity: [opportunity.id],
    member: [workspace.memberId, member.id],
    note: [note.id],
    task: [task.id],
    meeting: [meeting.id],
    list: [list.id],
    file: [transcript, pending],
    record: [record.id],
    workspace: [workspace.workspaceId],
    apiKey: [spare.id],
    // An event of the workspace, which its webhook was never sent: a redelivery's eventId.
    event: [event.id],
    webhook: [webhook.id],
  };
  const privateTokens = [
    ...Object.values(ids).flat(),
    workspace.apiKeyId,
    limited.id,
    workspace.memberEmail,
    member.email,
    customSlug,
    marker,
  ];
  return { name, workspace, limitedKey: limited.key, ids, customSlug, privateTokens };
}

async function definedKeys(
  http: TestAgent,
  world: WorkspaceWorld,
): Promise<{ fields: string[]; relationships: string[] }> {
  const paths = [
    ...TYPES_WITH_DEFINITIONS.map((path) => `/v1/${path}/definitions`),
    `/v1/objects/${world.customSlug}/definitions`,
  ];
  const fields: string[] = [];
  const relationships: string[] = [];
  for (const path of paths) {
    const definitions = await ok<{ fieldDefinitions: object; relationshipDefinitions: object }>(
      http.get(path).set(v1Headers(world.workspace.key)),
      `GET ${path}`,
    );
    fields.push(...Object.keys(definitions.fieldDefinitions));
    relationships.push(...Object.keys(definitions.relationshipDefinitions));
  }
  return { fields, relationships };
}

/**
 * The workspace of the prototype-key probes: seeded as A and B are, with the operator's example
 * type `project` and a record of it, so that every documented example body fits it. No generated
 * request can reach it (its ids and keys are in no pool), so its definitions stay as seeded: none
 * defines a prototype-named key, nor a required member an example leaves out.
 */
async function probeWorkspace(http: TestAgent): Promise<WorkspaceWorld> {
  const seeded = await seedWorkspace(http, 'P');
  const workspaceId = seeded.workspace.workspaceId;
  await ok(
    http
      .post(`/admin/v1/workspaces/${workspaceId}/object-types`)
      .set(adminHeaders())
      .send(PROJECT_TYPE_EXAMPLE.value as object),
    'create the project type',
  );
  const project = await ok<{ id: string }>(
    http
      .post(`/v1/objects/${PROJECT_SLUG}/values`)
      .set(v1Headers(seeded.workspace.key))
      .send(PROJECT_CREATE_EXAMPLE.value as object),
    'project record',
  );
  return { ...seeded, customSlug: PROJECT_SLUG, ids: { ...seeded.ids, record: [project.id] } };
}

/** Two workspaces seeded alike, the keys their types define, and the probes' workspace. */
export async function seedWorld(http: TestAgent): Promise<FuzzWorld> {
  const A = await seedWorkspace(http, 'A');
  const B = await seedWorkspace(http, 'B');
  const P = await probeWorkspace(http);
  const keysA = await definedKeys(http, A);
  const keysB = await definedKeys(http, B);
  const unique = (keys: string[]) => [...new Set(keys)].sort();
  return {
    A,
    B,
    P,
    adminToken: TEST_ADMIN_TOKEN,
    fieldKeys: unique([...keysA.fields, ...keysB.fields, ...UNLISTED_FIELD_KEYS]),
    relationshipKeys: unique([...keysA.relationships, ...keysB.relationships, ...UNLISTED_RELATIONSHIP_KEYS]),
  };
}
