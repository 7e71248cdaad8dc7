import { sourceFiles } from '../../test/support/source-files';

/**
 * The tables of the records domain and search's documents, the entity that maps a table when it
 * has one, and the one file that reads and writes each, in SQL or through its entity (the filter
 * compiler writes conditions on the value index and record-pages.ts builds RecordsRepository's
 * page statement, both for it). Others ask these owners through named methods; migrations define
 * the tables and are left out.
 */
const OWNERS: [table: string, entity: string | undefined, owners: string[]][] = [
  ['records', undefined, ['records/records.repository.ts', 'records/record-pages.ts']],
  ['record_counts', undefined, ['records/records.repository.ts', 'records/record-pages.ts']],
  [
    'record_values',
    undefined,
    ['records/records.repository.ts', 'records/record-filters.ts', 'records/record-pages.ts'],
  ],
  ['record_links', undefined, ['records/record-links.repository.ts']],
  ['record_link_counts', undefined, ['records/record-links.repository.ts']],
  ['object_types', 'ObjectTypeEntity', ['records/definitions.repository.ts']],
  ['field_definitions', 'FieldDefinitionEntity', ['records/definitions.repository.ts']],
  ['relationship_definitions', 'RelationshipDefinitionEntity', ['records/definitions.repository.ts']],
  ['lists', undefined, ['modules/lists/lists.repository.ts']],
  ['list_members', undefined, ['modules/lists/lists.repository.ts']],
  ['files', undefined, ['modules/files/files.repository.ts']],
  ['events', undefined, ['records/events.repository.ts']],
  ['webhook_endpoints', undefined, ['modules/webhooks/webhooks.repository.ts']],
  ['webhook_deliveries', undefined, ['modules/webhooks/webhooks.repository.ts']],
  ['webhook_outbox', undefined, ['modules/webhooks/webhooks.repository.ts']],
  ['search_documents', 'SearchDocumentEntity', ['modules/search/search.repository.ts']],
];

describe('every table of the records domain has one owner', () => {
  const files = sourceFiles();

  it.each(OWNERS)('%s: only its owner reads or writes it', (table, entity, owners) => {
    // SQL on the table, or its entity handed to TypeORM (`getRepository(E)`, `findOneBy(E, …)`, `into(E)`).
    const uses = [
      new RegExp(`\\b(FROM|JOIN|INTO|UPDATE)\\s+${table}\\b`),
      ...(entity ? [new RegExp(`\\(\\s*${entity}\\b`)] : []),
    ];
    const users = files.filter((file) => uses.some((use) => use.test(file.text))).map((file) => file.name);
    expect(users.sort()).toEqual([...owners].sort());
  });
});
