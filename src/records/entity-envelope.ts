import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { exampleIdOf } from '../common/ids';
import { fieldTypeOf } from './field-types/registry';
import type { ObjectTypeDefinition } from './object-type';
import type { ValueType } from './value-types';

/** A field value read back; its schema, one variant per value type, is documentFieldValues'. */
export class FieldValueDto {
  value: unknown;
  valueType: ValueType;
}

export class RelationshipValueDto {
  @ApiProperty({ enum: ['has_one', 'has_many'] })
  cardinality: 'has_one' | 'has_many';

  @ApiProperty({ example: 'account' })
  objectType: string;

  @ApiProperty({ type: [String] })
  values: string[];
}

@ApiExtraModels(FieldValueDto, RelationshipValueDto)
export class EntityEnvelopeDto {
  @ApiProperty({ example: exampleIdOf('note') })
  id: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  updatedAt: string | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 1,
    description: 'How many changes the record has had; its ETag is `"v<version>"`. Members have none.',
  })
  version?: number;

  @ApiProperty({ type: 'string', nullable: true, description: 'URL of the entity in the web app' })
  httpLink: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(FieldValueDto) },
    description: 'Every field of the type, by key; an unset one reads null',
    example: {
      $title: { value: 'Title', valueType: 'TEXT' },
      $content: { value: null, valueType: 'MARKDOWN' },
    },
  })
  fields: Record<string, FieldValueDto>;

  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: getSchemaPath(RelationshipValueDto) },
    description: 'Every relationship of the type, by key; an empty one reads []',
    example: {
      $account: { cardinality: 'has_many', objectType: 'account', values: [exampleIdOf('account')] },
      $createdBy: { cardinality: 'has_one', objectType: 'member', values: [exampleIdOf('member')] },
    },
  })
  relationships: Record<string, RelationshipValueDto>;

  @ApiProperty({ type: 'string', nullable: true })
  externalId: string | null;
}

/**
 * A record as stored, whatever its table: the `fields` document (a parsed JSON object, read by own
 * keys only) and linked ids by relationship key.
 */
export interface StoredEntity {
  id: string;
  createdAt: Date;
  updatedAt: Date | null;
  /** Records' change counter; members have none. */
  version?: number;
  externalId: string | null;
  fields: Readonly<Record<string, unknown>>;
  links: ReadonlyMap<string, string[]>;
}

/**
 * The one mapper from stored records to the entity envelope (docs/api.md §7): every field and
 * relationship the type defines is present, unset fields read `null`, empty relationships `[]`.
 */
export function toEntityEnvelope(
  type: ObjectTypeDefinition,
  entity: StoredEntity,
  publicAppUrl: string | undefined,
): EntityEnvelopeDto {
  // Keys are the workspace's (`constructor`, `toString` are valid): only own members of the stored
  // document count, and the envelope's maps are built from entries, never by assignment.
  const fields = Object.fromEntries(
    type.fields.map((field): [string, FieldValueDto] => {
      const stored = Object.hasOwn(entity.fields, field.key) ? entity.fields[field.key] : null;
      const value = stored === null ? null : fieldTypeOf(field.valueType).read(stored, field);
      return [field.key, { value, valueType: field.valueType }];
    }),
  );
  const relationships = Object.fromEntries(
    type.relationships.map((relationship): [string, RelationshipValueDto] => [
      relationship.key,
      {
        cardinality: relationship.cardinality === 'HAS_ONE' ? 'has_one' : 'has_many',
        objectType: relationship.objectType,
        values: entity.links.get(relationship.key) ?? [],
      },
    ]),
  );
  return {
    id: entity.id,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt?.toISOString() ?? null,
    // Undefined for members: JSON leaves it out.
    version: entity.version,
    httpLink: publicAppUrl ? `${publicAppUrl}/${type.slug}/${entity.id}` : null,
    fields,
    relationships,
    externalId: entity.externalId,
  };
}
