import { Global, Module } from '@nestjs/common';
import { DefinitionsRepository } from './definitions.repository';
import { DefinitionsService } from './definitions.service';
import { LinkTargets } from './link-targets';
import { RecordLinksRepository } from './record-links.repository';
import { RecordsRepository } from './records.repository';
import { RecordsService } from './records.service';
import { WorkspacesRepository } from './workspaces.repository';

/** The records core: shared by every record type's module. */
@Global()
@Module({
  providers: [
    DefinitionsRepository,
    DefinitionsService,
    RecordsRepository,
    RecordLinksRepository,
    LinkTargets,
    RecordsService,
    WorkspacesRepository,
  ],
  exports: [DefinitionsRepository, DefinitionsService, LinkTargets, RecordsService, WorkspacesRepository],
})
export class RecordsModule {}
