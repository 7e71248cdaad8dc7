import { SEARCH_SYSTEM_FIELDS } from '../../database/migrations/1795887400000-search';
import { SYSTEM_RECORD_TYPES } from '../../records/system-types';
import { METADATA_FIELDS } from '../meetings/meetings.service';

/**
 * The search trigger reads system fields' value types, option labels and METADATA visibility from
 * the migration's snapshot of the catalogue: a change to the catalogue needs a migration that
 * changes the snapshot (and refreshes the documents), which this test asks for.
 */
describe('search_system_fields', () => {
  it('is the system catalogue and the fields a METADATA reader of a meeting sees', () => {
    const catalogue = SYSTEM_RECORD_TYPES.flatMap((type) =>
      type.fields.map((field) => ({
        objectType: type.slug,
        key: field.key,
        valueType: field.valueType,
        labels: (field.typeConfiguration.options ?? []).filter((option) => option.id !== option.label),
        shownAtMetadata: type.slug === 'meeting' && METADATA_FIELDS.has(field.key),
      })),
    );
    const snapshot = SEARCH_SYSTEM_FIELDS.map((field) => ({
      objectType: field.objectType,
      key: field.key,
      valueType: field.valueType,
      labels: field.options ?? [],
      shownAtMetadata: field.shownAtMetadata ?? false,
    }));
    expect(snapshot).toEqual(catalogue);
  });
});
