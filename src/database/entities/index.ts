import { ApiKeyEntity } from './api-key.entity';
import { FieldDefinitionEntity } from './field-definition.entity';
import { FileEntity } from './file.entity';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { ListMemberEntity } from './list-member.entity';
import { ListEntity } from './list.entity';
import { MemberEntity } from './member.entity';
import { ObjectTypeEntity } from './object-type.entity';
import { RecordCountEntity } from './record-count.entity';
import { RecordLinkCountEntity } from './record-link-count.entity';
import { RecordLinkEntity } from './record-link.entity';
import { RecordEntity } from './record.entity';
import { RelationshipDefinitionEntity } from './relationship-definition.entity';
import { WorkspaceEntity } from './workspace.entity';

export {
  ApiKeyEntity,
  FieldDefinitionEntity,
  FileEntity,
  IdempotencyKeyEntity,
  ListEntity,
  ListMemberEntity,
  MemberEntity,
  ObjectTypeEntity,
  RecordCountEntity,
  RecordEntity,
  RecordLinkCountEntity,
  RecordLinkEntity,
  RelationshipDefinitionEntity,
  WorkspaceEntity,
};
/** Every table as code reads it (test/e2e/entities.e2e-spec.ts holds them to the migrations). */
export const ENTITIES = [
  WorkspaceEntity,
  MemberEntity,
  ApiKeyEntity,
  IdempotencyKeyEntity,
  ObjectTypeEntity,
  FieldDefinitionEntity,
  RelationshipDefinitionEntity,
  RecordEntity,
  RecordLinkEntity,
  RecordCountEntity,
  RecordLinkCountEntity,
  FileEntity,
  ListEntity,
  ListMemberEntity,
];
