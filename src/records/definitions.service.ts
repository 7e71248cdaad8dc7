import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error';
import { Transactions } from '../database/transactions';
import type { FieldDefinition, ObjectTypeDefinition, RelationshipDefinition, TypeConfiguration } from './object-type';
import { SYSTEM_RECORD_TYPES } from './system-types';
import type { ValueType } from './value-types';

interface FieldRow {
  id: string;
  object_type: string;
  key: string;
  label: string;
  value_type: ValueType;
  description: string | null;
  type_configuration: TypeConfiguration;
  required: boolean;
}

interface RelationshipRow {
  id: string;
  object_type: string;
  key: string;
  label: string;
  cardinality: 'HAS_ONE' | 'HAS_MANY';
  target_type: string;
  description: string | null;
  inverse_key: string;
  inverse_label: string;
}

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
 */
@Injectable()
export class DefinitionsService {
  private readonly cache = new Map<string, CachedWorkspace>();

  constructor(private readonly transactions: Transactions) {}

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
    const version = metadataVersion ?? (await this.currentVersion(workspaceId));
    const cached = this.cache.get(workspaceId);
    // A request authenticated just before a change may carry the older version: the newer cache serves it.
    if (cached && cached.version >= version) return cached.types;
    const types = await this.load(workspaceId);
    this.cache.delete(workspaceId);
    this.cache.set(workspaceId, { version, types });
    if (this.cache.size > MAX_CACHED_WORKSPACES) this.cache.delete(this.cache.keys().next().value!);
    return types;
  }

  private async currentVersion(workspaceId: string): Promise<number> {
    const [row] = (await this.transactions.manager.query(`SELECT metadata_version FROM workspaces WHERE id = $1`, [
      workspaceId,
    ])) as { metadata_version: number }[];
    return row?.metadata_version ?? 0;
  }

  /** Marks the workspace's definitions changed; call inside the transaction that changes them. */
  async bumpVersion(workspaceId: string): Promise<void> {
    await this.transactions.manager.query(
      `UPDATE workspaces SET metadata_version = metadata_version + 1 WHERE id = $1`,
      [workspaceId],
    );
    this.cache.delete(workspaceId);
  }

  private async load(workspaceId: string): Promise<Map<string, ObjectTypeDefinition>> {
    const manager = this.transactions.manager;
    const types = new Map(SYSTEM_RECORD_TYPES.map((type) => [type.slug, cloneType(type)]));
    const customTypes = (await manager.query(
      `SELECT slug, label FROM object_types WHERE workspace_id = $1 ORDER BY created_at, slug`,
      [workspaceId],
    )) as { slug: string; label: string }[];
    for (const { slug, label } of customTypes) {
      types.set(slug, { slug, label, custom: true, fields: [], relationships: [] });
    }
    const fields = (await manager.query(
      `SELECT id, object_type, key, label, value_type, description, type_configuration, required
         FROM field_definitions WHERE workspace_id = $1 ORDER BY created_at, id`,
      [workspaceId],
    )) as FieldRow[];
    const relationships = (await manager.query(
      `SELECT id, object_type, key, label, cardinality, target_type, description, inverse_key, inverse_label
         FROM relationship_definitions WHERE workspace_id = $1 ORDER BY created_at, id`,
      [workspaceId],
    )) as RelationshipRow[];
    for (const row of fields) types.get(row.object_type)?.fields.push(toFieldDefinition(row));
    for (const row of relationships) {
      const [outgoing, inverse] = toRelationshipDefinitions(row);
      types.get(row.object_type)?.relationships.push(outgoing);
      types.get(row.target_type)?.relationships.push(inverse);
    }
    return types;
  }
}

function toFieldDefinition(row: FieldRow): FieldDefinition {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    valueType: row.value_type,
    description: row.description,
    typeConfiguration: row.type_configuration,
    readOnly: false,
    required: row.required,
  };
}

/** A custom relationship, and its read-only inverse on the target type (always HAS_MANY). */
function toRelationshipDefinitions(row: RelationshipRow): [RelationshipDefinition, RelationshipDefinition] {
  const link = `${row.object_type}:${row.key}`;
  return [
    {
      id: row.id,
      key: row.key,
      label: row.label,
      cardinality: row.cardinality,
      objectType: row.target_type,
      description: row.description,
      readOnly: false,
      required: false,
      binding: { link, side: 'source' },
    },
    {
      key: row.inverse_key,
      label: row.inverse_label,
      cardinality: 'HAS_MANY',
      objectType: row.object_type,
      description: `Inverse of ${row.object_type}.${row.key}`,
      readOnly: true,
      required: false,
      binding: { link, side: 'target' },
    },
  ];
}
