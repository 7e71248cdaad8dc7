import { ApiKeyEntity } from './api-key.entity';
import { FieldDefinitionEntity } from './field-definition.entity';
import { MemberEntity } from './member.entity';
import { ObjectTypeEntity } from './object-type.entity';
import { RelationshipDefinitionEntity } from './relationship-definition.entity';
import { WorkspaceEntity } from './workspace.entity';

export { ApiKeyEntity, FieldDefinitionEntity, MemberEntity, ObjectTypeEntity, RelationshipDefinitionEntity, WorkspaceEntity };
export const ENTITIES = [
  WorkspaceEntity,
  MemberEntity,
  ApiKeyEntity,
  ObjectTypeEntity,
  FieldDefinitionEntity,
  RelationshipDefinitionEntity,
];
