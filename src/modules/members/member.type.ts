import type { ObjectTypeDefinition } from '../../records/object-type';

function systemField(key: string, label: string, valueType: 'EMAIL' | 'FULL_NAME' | 'TEXT') {
  return { key, label, valueType, description: null, typeConfiguration: {}, readOnly: true, required: true };
}

/** Members as the records core sees them (docs/api.md §6): read-only through the public API. */
export const MEMBER_TYPE: ObjectTypeDefinition = {
  slug: 'member',
  label: 'Member',
  fields: [
    systemField('$email', 'Email', 'EMAIL'),
    systemField('$name', 'Name', 'FULL_NAME'),
    systemField('$role', 'Role', 'TEXT'),
  ],
  relationships: [],
  updateOperations: [],
};
