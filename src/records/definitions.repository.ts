import { Injectable } from '@nestjs/common';
import type { FieldDefinitionEntity } from '../database/entities/field-definition.entity';
import type { ObjectTypeEntity } from '../database/entities/object-type.entity';
import type { RelationshipDefinitionEntity } from '../database/entities/relationship-definition.entity';
import { Transactions } from '../database/transactions';

/** A definition as inserted: the database stamps `created_at`. */
export type NewRow<T> = Omit<T, 'createdAt'>;

/**
 * The stored definitions of a workspace: `object_types`, `field_definitions` and
 * `relationship_definitions`, each read in creation order as its entity names the columns (the
 * database stamps `created_at`). The workspace's `metadata_version`, which versions them, belongs
 * to the workspaces owner (see DefinitionsService).
 */
@Injectable()
export class DefinitionsRepository {
  constructor(private readonly transactions: Transactions) {}

  async customTypes(workspaceId: string): Promise<ObjectTypeEntity[]> {
    return this.transactions.query<ObjectTypeEntity>(
      `SELECT workspace_id AS "workspaceId", slug, label, created_at AS "createdAt"
         FROM object_types WHERE workspace_id = $1 ORDER BY created_at, slug`,
      [workspaceId],
    );
  }

  async fields(workspaceId: string): Promise<FieldDefinitionEntity[]> {
    return this.transactions.query<FieldDefinitionEntity>(
      `SELECT id, workspace_id AS "workspaceId", object_type AS "objectType", key, label, value_type AS "valueType",
              description, type_configuration AS "typeConfiguration", required, created_at AS "createdAt"
         FROM field_definitions WHERE workspace_id = $1 ORDER BY created_at, id`,
      [workspaceId],
    );
  }

  async relationships(workspaceId: string): Promise<RelationshipDefinitionEntity[]> {
    return this.transactions.query<RelationshipDefinitionEntity>(
      `SELECT id, workspace_id AS "workspaceId", object_type AS "objectType", key, label, cardinality,
              target_type AS "targetType", description, inverse_key AS "inverseKey", inverse_label AS "inverseLabel",
              created_at AS "createdAt"
         FROM relationship_definitions WHERE workspace_id = $1 ORDER BY created_at, id`,
      [workspaceId],
    );
  }

  /** False when the workspace already has a type with this slug (nothing is written then). */
  async insertType(type: NewRow<ObjectTypeEntity>): Promise<boolean> {
    const rows = await this.transactions.query(
      `INSERT INTO object_types (workspace_id, slug, label) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING slug`,
      [type.workspaceId, type.slug, type.label],
    );
    return rows.length > 0;
  }

  async insertField(field: NewRow<FieldDefinitionEntity>): Promise<void> {
    await this.transactions.query(
      `INSERT INTO field_definitions (id, workspace_id, object_type, key, label, value_type, description, type_configuration, required)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
      [
        field.id,
        field.workspaceId,
        field.objectType,
        field.key,
        field.label,
        field.valueType,
        field.description,
        JSON.stringify(field.typeConfiguration),
        field.required,
      ],
    );
  }

  async insertRelationship(relationship: NewRow<RelationshipDefinitionEntity>): Promise<void> {
    await this.transactions.query(
      `INSERT INTO relationship_definitions
         (id, workspace_id, object_type, key, label, cardinality, target_type, description, inverse_key, inverse_label)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        relationship.id,
        relationship.workspaceId,
        relationship.objectType,
        relationship.key,
        relationship.label,
        relationship.cardinality,
        relationship.targetType,
        relationship.description,
        relationship.inverseKey,
        relationship.inverseLabel,
      ],
    );
  }
}
