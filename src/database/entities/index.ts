import { ApiKeyEntity } from './api-key.entity';
import { EventEntity } from './event.entity';
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
import { RecordValueEntity } from './record-value.entity';
import { RecordEntity } from './record.entity';
import { RelationshipDefinitionEntity } from './relationship-definition.entity';
import { SearchDocumentEntity } from './search-document.entity';
import { SearchSystemFieldEntity } from './search-system-field.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookOutboxEntity } from './webhook-outbox.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WorkspaceEntity } from './workspace.entity';

export {
  ApiKeyEntity,
  EventEntity,
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
  RecordValueEntity,
  RelationshipDefinitionEntity,
  SearchDocumentEntity,
  SearchSystemFieldEntity,
  WebhookDeliveryEntity,
  WebhookEndpointEntity,
  WebhookOutboxEntity,
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
  RecordValueEntity,
  EventEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
  WebhookOutboxEntity,
  SearchDocumentEntity,
  SearchSystemFieldEntity,
];
