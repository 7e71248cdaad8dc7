import { Module } from '@nestjs/common';
import { ChangeEvents } from './change-events';
import { DefinitionsRepository } from './definitions.repository';
import { DefinitionsService } from './definitions.service';
import { LinkedEnds } from './linked-ends';
import { LinkTargets } from './link-targets';
import { RecordBatches } from './record-batches';
import { RecordEnvelopes } from './record-envelopes';
import { RecordWriter } from './record-writer';
import { EventSignals } from './event-signals';
import { EventsRepository } from './events.repository';
import { RecordLinksRepository } from './record-links.repository';
import { RecordsRepository } from './records.repository';
import { RecordsService } from './records.service';
import { RecordWriteChecks } from './write-checks';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

/** The records core: shared by every record type's module. */
@Module({
  providers: [
    DefinitionsRepository,
    DefinitionsService,
    RecordsRepository,
    RecordLinksRepository,
    LinkTargets,
    RecordEnvelopes,
    LinkedEnds,
    RecordWriteChecks,
    RecordWriter,
    RecordsService,
    RecordBatches,
    WorkspacesRepository,
    WorkspacesService,
    EventSignals,
    EventsRepository,
    ChangeEvents,
  ],
  exports: [DefinitionsService, LinkTargets, RecordsService, RecordBatches, WorkspacesService, ChangeEvents],
})
export class RecordsModule {}
