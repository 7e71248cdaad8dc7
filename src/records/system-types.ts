import type {
  Cardinality,
  FieldDefinition,
  ObjectTypeDefinition,
  RelationshipDefinition,
  TypeConfiguration,
} from './object-type';
import type { Scope } from '../common/auth/scopes';
import type { ValueType } from './value-types';

/** A system type always names the scope that reads it. */
export type SystemRecordType = ObjectTypeDefinition & { readScope: Scope };

/**
 * The entity types that are not records (lists and files): their events are in the feed and
 * webhooks beside the records', read with these scopes.
 */
export const NON_RECORD_TYPES = [
  { slug: 'list', readScope: 'lists:read' },
  { slug: 'file', readScope: 'files:read' },
] as const satisfies readonly { slug: string; readScope: Scope }[];

/**
 * The system object types and their fields and relationships (docs/api.md §7). They live in code, not
 * in seeded rows: the services depend on them (a task needs `$assignedTo`), they are the same in
 * every workspace, and a deploy changes code and catalogue together. Workspaces add custom fields
 * and relationships on top (stored in `field_definitions` and `relationship_definitions`).
 */

type FieldOptions = Partial<Pick<FieldDefinition, 'required' | 'readOnly' | 'description'>> & TypeConfiguration;

function field(key: string, label: string, valueType: ValueType, options: FieldOptions = {}): FieldDefinition {
  const { required = false, readOnly = false, description = null, ...typeConfiguration } = options;
  return { key, label, valueType, description, typeConfiguration, readOnly, required };
}

/** System enums read back their literal value as the option id (docs/api.md §7). */
function literalOptions(values: readonly string[]): { options: { id: string; label: string }[] } {
  return { options: values.map((value) => ({ id: value, label: value })) };
}

type RelationshipOptions = Partial<
  Pick<RelationshipDefinition, 'required' | 'readOnly' | 'createOnly' | 'defaultsToCaller' | 'description'>
>;

/** A relationship stored on this type's side: the link is named `<type>:<key>`. */
function outgoing(
  type: string,
  key: string,
  label: string,
  objectType: string,
  cardinality: Cardinality,
  options: RelationshipOptions = {},
): RelationshipDefinition {
  return {
    key,
    label,
    objectType,
    cardinality,
    description: options.description ?? null,
    readOnly: options.readOnly ?? false,
    required: options.required ?? false,
    createOnly: options.createOnly,
    defaultsToCaller: options.defaultsToCaller,
    binding: { link: `${type}:${key}`, side: 'source' },
  };
}

/** The other end of `<sourceType>:<sourceKey>`, read-only unless stated. */
function inverse(
  key: string,
  label: string,
  sourceType: string,
  sourceKey: string,
  cardinality: Cardinality,
  options: RelationshipOptions = {},
): RelationshipDefinition {
  return {
    key,
    label,
    objectType: sourceType,
    cardinality,
    description: options.description ?? null,
    readOnly: options.readOnly ?? true,
    required: false,
    binding: { link: `${sourceType}:${sourceKey}`, side: 'target' },
  };
}

export const TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'COMPLETE', 'CANCELLED'] as const;
export const OPPORTUNITY_STAGES = ['LEAD', 'QUALIFIED', 'PROPOSAL', 'NEGOTIATION', 'WON', 'LOST'] as const;
const HEADCOUNTS = ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001+'];
const INDUSTRIES = [
  'Agriculture',
  'Construction',
  'Education',
  'Energy',
  'Finance',
  'Healthcare',
  'Hospitality',
  'Manufacturing',
  'Media',
  'Nonprofit',
  'Professional services',
  'Public sector',
  'Real estate',
  'Retail',
  'Software',
  'Telecommunications',
  'Transportation',
];

const NOTE: SystemRecordType = {
  slug: 'note',
  readScope: 'notes:read',
  label: 'Note',
  updateOperations: ['add', 'remove'],
  fields: [field('$title', 'Title', 'TEXT', { required: true }), field('$content', 'Content', 'MARKDOWN')],
  relationships: [
    outgoing('note', '$account', 'Accounts', 'account', 'HAS_MANY'),
    outgoing('note', '$opportunity', 'Opportunities', 'opportunity', 'HAS_MANY'),
    outgoing('note', '$createdBy', 'Author', 'member', 'HAS_ONE', { readOnly: true, defaultsToCaller: true }),
  ],
};

const TASK: SystemRecordType = {
  slug: 'task',
  readScope: 'tasks:read',
  label: 'Task',
  updateOperations: ['add', 'remove', 'replace'],
  fields: [
    field('$title', 'Title', 'TEXT', { required: true }),
    field('$status', 'Status', 'SINGLE_SELECT', { required: true, ...literalOptions(TASK_STATUSES) }),
    field('$description', 'Description', 'MARKDOWN'),
    field('$dueAt', 'Due at', 'DATETIME'),
  ],
  relationships: [
    outgoing('task', '$assignedTo', 'Assignee', 'member', 'HAS_ONE', { required: true }),
    outgoing('task', '$account', 'Account', 'account', 'HAS_ONE'),
    outgoing('task', '$opportunity', 'Opportunity', 'opportunity', 'HAS_ONE'),
    outgoing('task', '$createdBy', 'Created by', 'member', 'HAS_ONE', { createOnly: true, defaultsToCaller: true }),
    outgoing('task', '$note', 'Note', 'note', 'HAS_ONE', { readOnly: true }),
  ],
};

const ACCOUNT: SystemRecordType = {
  slug: 'account',
  readScope: 'accounts:read',
  label: 'Account',
  updateOperations: ['add', 'remove', 'replace'],
  fields: [
    field('$name', 'Name', 'TEXT', { required: true }),
    field('$website', 'Website', 'URL', { multipleValues: true }),
    field('$primaryAddress', 'Primary address', 'ADDRESS'),
    field('$industry', 'Industry', 'MULTI_SELECT', {
      options: INDUSTRIES.map((label, i) => ({ id: `opt_industry_${i + 1}`, label })),
    }),
    field('$headcount', 'Headcount', 'SINGLE_SELECT', literalOptions(HEADCOUNTS)),
    field('$linkedIn', 'LinkedIn', 'SOCIAL_HANDLE', { handleService: 'LINKEDIN' }),
    field('$twitter', 'Twitter', 'SOCIAL_HANDLE', { handleService: 'TWITTER' }),
  ],
  relationships: [
    outgoing('account', '$owner', 'Owner', 'member', 'HAS_ONE'),
    {
      ...inverse('$contact', 'Contacts', 'contact', '$account', 'HAS_MANY', { readOnly: false }),
      inverseOfHasOne: true,
    },
    inverse('$opportunity', 'Opportunities', 'opportunity', '$account', 'HAS_MANY'),
    inverse('$note', 'Notes', 'note', '$account', 'HAS_MANY'),
    inverse('$task', 'Tasks', 'task', '$account', 'HAS_MANY'),
    inverse('$meeting', 'Meetings', 'meeting', '$account', 'HAS_MANY'),
  ],
};

const CONTACT: SystemRecordType = {
  slug: 'contact',
  readScope: 'contacts:read',
  label: 'Contact',
  updateOperations: ['add', 'remove', 'replace'],
  fields: [
    field('$name', 'Name', 'FULL_NAME'),
    field('$email', 'Email', 'EMAIL', { multipleValues: true }),
    field('$phone', 'Phone', 'TELEPHONE', { multipleValues: true }),
  ],
  relationships: [
    outgoing('contact', '$account', 'Account', 'account', 'HAS_ONE'),
    inverse('$meeting', 'Meetings', 'meeting', '$contact', 'HAS_MANY'),
  ],
};

const OPPORTUNITY: SystemRecordType = {
  slug: 'opportunity',
  readScope: 'opportunities:read',
  label: 'Opportunity',
  updateOperations: ['add', 'remove', 'replace'],
  fields: [
    field('$name', 'Name', 'TEXT', { required: true }),
    field('$stage', 'Stage', 'SINGLE_SELECT', { required: true, ...literalOptions(OPPORTUNITY_STAGES) }),
    field('$amount', 'Amount', 'CURRENCY', { currency: 'USD' }),
    field('$closeDate', 'Close date', 'DATETIME'),
  ],
  relationships: [
    outgoing('opportunity', '$account', 'Account', 'account', 'HAS_ONE', { required: true }),
    outgoing('opportunity', '$owner', 'Owner', 'member', 'HAS_ONE'),
    inverse('$note', 'Notes', 'note', '$opportunity', 'HAS_MANY'),
    inverse('$task', 'Tasks', 'task', '$opportunity', 'HAS_MANY'),
    inverse('$meeting', 'Meetings', 'meeting', '$opportunity', 'HAS_MANY'),
  ],
};

export const PRIVACY_SETTINGS = ['FULL', 'METADATA'] as const;

/**
 * Meetings (docs/api.md §7, §9): every field is written on create only, but `$privacySetting`; the
 * meetings service enforces that and the privacy redaction. `$contact`, `$account` and
 * `$opportunity` are derived from the attendees' emails by the service, never written by callers.
 */
const MEETING: SystemRecordType = {
  slug: 'meeting',
  readScope: 'meetings:read',
  label: 'Meeting',
  updateOperations: ['replace'],
  hidesCustomFields: true,
  fields: [
    field('$title', 'Title', 'TEXT', { required: true }),
    field('$startDate', 'Start', 'DATETIME', { required: true }),
    field('$endDate', 'End', 'DATETIME', { required: true }),
    field('$attendeeEmails', 'Attendees', 'EMAIL', { multipleValues: true }),
    field('$description', 'Description', 'MARKDOWN'),
    field('$meetingUrl', 'Meeting URL', 'URL'),
    field('$organizerEmail', 'Organizer', 'EMAIL'),
    field('$privacySetting', 'Privacy', 'SINGLE_SELECT', literalOptions(PRIVACY_SETTINGS)),
  ],
  relationships: [
    outgoing('meeting', '$transcript', 'Transcript', 'file', 'HAS_ONE'),
    outgoing('meeting', '$contact', 'Contacts', 'contact', 'HAS_MANY', { readOnly: true }),
    outgoing('meeting', '$account', 'Accounts', 'account', 'HAS_MANY', { readOnly: true }),
    outgoing('meeting', '$opportunity', 'Opportunities', 'opportunity', 'HAS_MANY', { readOnly: true }),
    outgoing('meeting', '$createdBy', 'Created by', 'member', 'HAS_ONE', { readOnly: true, defaultsToCaller: true }),
  ],
};

export const SYSTEM_RECORD_TYPES: readonly SystemRecordType[] = [NOTE, TASK, ACCOUNT, CONTACT, OPPORTUNITY, MEETING];

/** Slugs no custom type may take. */
export const RESERVED_TYPE_SLUGS = new Set([
  ...SYSTEM_RECORD_TYPES.map((type) => type.slug),
  'member',
  ...NON_RECORD_TYPES.map((type) => type.slug),
  'workspace',
]);
