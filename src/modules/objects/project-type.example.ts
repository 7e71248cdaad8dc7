import type { BodyExample } from '../../common/openapi/api-json-body';

/**
 * One story for every custom-object example: the operator creates the `project` type (this body is
 * also the repository's examples/object-type.json, a test keeps them equal), and the /v1/objects
 * examples write records that fit it. `code` is unique, so the record example leaves it out and
 * can be executed more than once; `status` is written by option label, which the ids generated
 * for the type's options do not need to be known for.
 */
export const PROJECT_SLUG = 'project';

export const PROJECT_TYPE_EXAMPLE: BodyExample = {
  summary: 'The project type of examples/object-type.json',
  value: {
    slug: PROJECT_SLUG,
    label: 'Project',
    fields: {
      name: { label: 'Name', valueType: 'TEXT', required: true },
      budget: { label: 'Budget', valueType: 'CURRENCY', typeConfiguration: { currency: 'EUR' } },
      status: {
        label: 'Status',
        valueType: 'SINGLE_SELECT',
        typeConfiguration: { options: [{ label: 'Planned' }, { label: 'Active' }, { label: 'Done' }] },
      },
      dueAt: { label: 'Due', valueType: 'DATETIME' },
      code: { label: 'Project code', valueType: 'TEXT', unique: true },
    },
    relationships: {
      client: { label: 'Client', cardinality: 'HAS_ONE', objectType: 'account' },
      lead: { label: 'Lead', cardinality: 'HAS_ONE', objectType: 'member' },
    },
  },
};

/** The project type's `unique` field, which upserts match on. */
export const PROJECT_UNIQUE_FIELD = 'code';

export const PROJECT_FIELD_EXAMPLE: BodyExample = {
  summary: 'A priority number on projects',
  value: { key: 'priority', label: 'Priority', valueType: 'NUMBER' },
};

export const PROJECT_RELATIONSHIP_EXAMPLE: BodyExample = {
  summary: 'A project’s reviewer, a member',
  value: { key: 'reviewer', label: 'Reviewer', cardinality: 'HAS_ONE', objectType: 'member' },
};

export const PROJECT_CREATE_EXAMPLE: BodyExample = {
  summary: 'A record of the project type (create it with the operator’s create-type example)',
  value: { fields: { name: 'Website relaunch', budget: 25000, status: 'Planned', dueAt: '2026-03-31T00:00:00Z' } },
};

export const PROJECT_UPDATE_EXAMPLE: BodyExample = {
  summary: 'Move a project to Active',
  value: { fields: { status: 'Active' } },
};

export const PROJECT_FILTER_EXAMPLE = { 'name[startsWith]': 'Website' };
