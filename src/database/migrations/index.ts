import { Foundation1763769600000 } from './1763769600000-foundation';
import { RecordsCore1763773200000 } from './1763773200000-records-core';
import { RecordCounts1763776800000 } from './1763776800000-record-counts';
import { Files1763780400000 } from './1763780400000-files';
import { CustomTypesAndLists1763784000000 } from './1763784000000-custom-types-and-lists';
import { RecordValues1763787600000 } from './1763787600000-record-values';
import { RecordValuesOrder1763791200000 } from './1763791200000-record-values-order';
import { FilesCreatedAtMilliseconds1763794800000 } from './1763794800000-files-created-at-milliseconds';
import { MeetingAccess1763798400000 } from './1763798400000-meeting-access';
import { RecordCountSlots1763802000000 } from './1763802000000-record-count-slots';
import { RecordLinkCounts1763805600000 } from './1763805600000-record-link-counts';
import { RecordFieldsSize1763809200000 } from './1763809200000-record-fields-size';
import { WebsiteHostIndex1763812800000 } from './1763812800000-website-host-index';
import { FileCommits1763816400000 } from './1763816400000-file-commits';
import { Events1764158400000 } from './1764158400000-events';
import { Webhooks1764162000000 } from './1764162000000-webhooks';
import { JobQueueSchema1795887100000 } from './1795887100000-job-queue-schema';
import { DeliveryLogRetention1795887200000 } from './1795887200000-delivery-log-retention';
import { WebhookFanOut1795887300000 } from './1795887300000-webhook-fan-out';
import { Search1795887400000 } from './1795887400000-search';
import { SearchStatementTriggers1795887500000 } from './1795887500000-search-statement-triggers';
import { WorkspaceKeys1795887600000 } from './1795887600000-workspace-keys';
import { RecordValuesKey1795887700000 } from './1795887700000-record-values-key';
import { IdempotencyReplayBytes1795887800000 } from './1795887800000-idempotency-replay-bytes';
import { WebhookOutbox1795887900000 } from './1795887900000-webhook-outbox';
import { OutboxSignalAfterCommit1795888000000 } from './1795888000000-outbox-signal-after-commit';
import { RecordFieldsIndexNoPendingList1795888100000 } from './1795888100000-record-fields-index-no-pending-list';
import { RecordVersions1795888200000 } from './1795888200000-record-versions';
import { ListAndWebhookVersions1795888300000 } from './1795888300000-list-and-webhook-versions';

/** Every migration, in order. Listed explicitly so the app, jest and the CLI load the same set. */
export const MIGRATIONS = [
  Foundation1763769600000,
  RecordsCore1763773200000,
  RecordCounts1763776800000,
  Files1763780400000,
  CustomTypesAndLists1763784000000,
  RecordValues1763787600000,
  RecordValuesOrder1763791200000,
  FilesCreatedAtMilliseconds1763794800000,
  MeetingAccess1763798400000,
  RecordCountSlots1763802000000,
  RecordLinkCounts1763805600000,
  RecordFieldsSize1763809200000,
  WebsiteHostIndex1763812800000,
  FileCommits1763816400000,
  Events1764158400000,
  Webhooks1764162000000,
  JobQueueSchema1795887100000,
  DeliveryLogRetention1795887200000,
  WebhookFanOut1795887300000,
  Search1795887400000,
  SearchStatementTriggers1795887500000,
  WorkspaceKeys1795887600000,
  RecordValuesKey1795887700000,
  IdempotencyReplayBytes1795887800000,
  WebhookOutbox1795887900000,
  OutboxSignalAfterCommit1795888000000,
  RecordFieldsIndexNoPendingList1795888100000,
  RecordVersions1795888200000,
  ListAndWebhookVersions1795888300000,
];
