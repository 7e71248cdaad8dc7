import { Injectable } from '@nestjs/common';
import { FieldDefinitionEntity } from '../database/entities/field-definition.entity';
import { ObjectTypeEntity } from '../database/entities/object-type.entity';
import { RelationshipDefinitionEntity } from '../database/entities/relationship-definition.entity';
import { Transactions } from '../database/transactions';

type NewRow<T> = Omit<T, 'createdAt'>;

/**
 * The stored definitions of a workspace: `object_types`, `field_definitions` and
 * `relationship_definitions`, each read in creation order. The workspace's `metadata_version`,
 * which versions them, belongs to the workspaces owner (see DefinitionsService).
 */
@Injectable()
export class DefinitionsRepository {
  constructor(private readonly transactions: Transactions) {}

  async customTypes(workspaceId: string): Promise<ObjectTypeEntity[]> {
    return this.transactions.manager.getRepository(ObjectTypeEntity).find({
      where: { workspaceId },
      order: { createdAt: 'ASC', slug: 'ASC' },
    });
  }

  async fields(workspaceId: string): Promise<FieldDefinitionEntity[]> {
    return this.transactions.manager.getRepository(FieldDefinitionEntity).find({
      where: { workspaceId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  async relationships(workspaceId: string): Promise<RelationshipDefinitionEntity[]> {
    return this.transactions.manager.getRepository(RelationshipDefinitionEntity).find({
      where: { workspaceId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
  }

  /** False when the workspace already has a type with this slug (nothing is written then). */
  async insertType(type: NewRow<ObjectTypeEntity>): Promise<boolean> {
    const result = await this.transactions.manager
      .createQueryBuilder()
      .insert()
      .into(ObjectTypeEntity)
      .values(type)
      .orIgnore()
      .returning('slug')
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  async insertField(field: NewRow<FieldDefinitionEntity>): Promise<void> {
    await this.transactions.manager.getRepository(FieldDefinitionEntity).insert(field);
  }

  async insertRelationship(relationship: NewRow<RelationshipDefinitionEntity>): Promise<void> {
    await this.transactions.manager.getRepository(RelationshipDefinitionEntity).insert(relationship);
  }
}
