import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { isIdOf } from '../common/ids';
import type { FieldDefinitionEntity } from '../database/entities/field-definition.entity';
import type { ObjectTypeEntity } from '../database/entities/object-type.entity';
import type { RelationshipDefinitionEntity } from '../database/entities/relationship-definition.entity';
import { DefinitionsRepository, NewRow } from './definitions.repository';
import type { FieldDefinition, ObjectTypeDefinition, RelationshipDefinition } from './object-type';
import { SYSTEM_RECORD_TYPES } from './system-types';
import type { ValueType } from './value-types';
import { WorkspacesRepository } from './workspaces.repository';

/** A workspace, with the metadata version its caller saw when known. */
export interface WorkspaceRef {
  workspaceId: string;
  metadataVersion?: number;
}

interface CachedWorkspace {
  version: number;
  types: Map<string, ObjectTypeDefinition>;
}

/** Enough for every active workspace of an instance; the oldest entry goes first. */
const MAX_CACHED_WORKSPACES = 5000;

function cloneType(type: ObjectTypeDefinition): ObjectTypeDefinition {
  return { ...type, fields: [...type.fields], relationships: [...type.relationships] };
}

/**
 * The object types of a workspace: the system catalogue plus its custom fields and relationships.
 * Cached per workspace and keyed by `workspaces.metadata_version`, which every definition change
 * increments in the same transaction, so every instance sees a change on its next request.
 *
 * A definition change is one transaction: lockForChange, the inserts, then bumpVersion.
 */
@Injectable()
export class DefinitionsService {
  private readonly cache = new Map<string, CachedWorkspace>();

  constructor(
    private readonly repository: DefinitionsRepository,
    private readonly workspaces: WorkspacesRepository,
  ) {}

  /** The type `slug` of the workspace; unknown → 404. */
  async typeOf(workspace: WorkspaceRef, slug: string): Promise<ObjectTypeDefinition> {
    const type = (await this.typesOf(workspace)).get(slug);
    if (!type) throw ApiError.notFound('Object type');
    return type;
  }

  /**
   * `metadataVersion` comes with the caller (read by the authentication query), so a request pays
   * no metadata query while the cache is current. Operator routes pass none and read it.
   */
  async typesOf({ workspaceId, metadataVersion }: WorkspaceRef): Promise<Map<string, ObjectTypeDefinition>> {
    const version = metadataVersion ?? (await this.workspaces.metadataVersion(workspaceId)) ?? 0;
    const cached = this.cache.get(workspaceId);
    // A request authenticated just before a change may carry the older version: the newer cache serves it.
    if (cached && cached.version >= version) return cached.types;
    const types = await this.load(workspaceId);
    this.cache.delete(workspaceId);
    this.cache.set(workspaceId, { version, types });
    if (this.cache.size > MAX_CACHED_WORKSPACES) this.cache.delete(this.cache.keys().next().value!);
    return types;
  }

  /**
   * Makes the definition changes of one workspace take turns until the transaction ends, so that
   * two cannot both take a key; 404 when there is no such workspace.
   */
  async lockForChange(workspaceId: string): Promise<void> {
    const exists = isIdOf('workspace', workspaceId) && (await this.workspaces.lockForMetadataChange(workspaceId));
    if (!exists) throw ApiError.notFound('Workspace');
  }

  /** False when the workspace already has a type with this slug (nothing is written then). */
  insertType(type: NewRow<ObjectTypeEntity>): Promise<boolean> {
    return this.repository.insertType(type);
  }

  insertField(field: NewRow<FieldDefinitionEntity>): Promise<void> {
    return this.repository.insertField(field);
  }

  insertRelationship(relationship: NewRow<RelationshipDefinitionEntity>): Promise<void> {
    return this.repository.insertRelationship(relationship);
  }

  /** Marks the workspace's definitions changed; call inside the transaction that changes them. */
  async bumpVersion(workspaceId: string): Promise<void> {
    await this.workspaces.incrementMetadataVersion(workspaceId);
    this.cache.delete(workspaceId);
  }

  private async load(workspaceId: string): Promise<Map<string, ObjectTypeDefinition>> {
    const types = new Map(SYSTEM_RECORD_TYPES.map((type) => [type.slug, cloneType(type)]));
    for (const { slug, label } of await this.repository.customTypes(workspaceId)) {
      types.set(slug, { slug, label, custom: true, fields: [], relationships: [] });
    }
    const fields = await this.repository.fields(workspaceId);
    const relationships = await this.repository.relationships(workspaceId);
    for (const row of fields) types.get(row.objectType)?.fields.push(toFieldDefinition(row));
    for (const row of relationships) {
      const [outgoing, inverse] = toRelationshipDefinitions(row);
      types.get(row.objectType)?.relationships.push(outgoing);
      types.get(row.targetType)?.relationships.push(inverse);
    }
    return types;
  }
}

function toFieldDefinition(row: FieldDefinitionEntity): FieldDefinition {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    // Only the admin API writes field definitions, from a validated AddFieldDto.
    valueType: row.valueType as ValueType,
    description: row.description,
    typeConfiguration: row.typeConfiguration,
    readOnly: false,
    required: row.required,
  };
}

/** A custom relationship, and its read-only inverse on the target type (always HAS_MANY). */
function toRelationshipDefinitions(
  row: RelationshipDefinitionEntity,
): [RelationshipDefinition, RelationshipDefinition] {
  const link = `${row.objectType}:${row.key}`;
  return [
    {
      id: row.id,
      key: row.key,
      label: row.label,
      cardinality: row.cardinality,
      objectType: row.targetType,
      description: row.description,
      readOnly: false,
      required: false,
      binding: { link, side: 'source' },
    },
    {
      key: row.inverseKey,
      label: row.inverseLabel,
      cardinality: 'HAS_MANY',
      objectType: row.objectType,
      description: `Inverse of ${row.objectType}.${row.key}`,
      readOnly: true,
      required: false,
      binding: { link, side: 'target' },
    },
  ];
}
