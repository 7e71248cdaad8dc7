import { Global, Module } from '@nestjs/common';
import { WorkspacesModule } from '../modules/workspaces/workspaces.module';
import { DefinitionsRepository } from './definitions.repository';
import { DefinitionsService } from './definitions.service';
import { LinkTargets } from './link-targets';
import { RecordLinksRepository } from './record-links.repository';
import { RecordsRepository } from './records.repository';
import { RecordsService } from './records.service';

/** The records core: shared by every record type's module. */
@Global()
@Module({
  imports: [WorkspacesModule],
  providers: [DefinitionsRepository, DefinitionsService, RecordsRepository, RecordLinksRepository, LinkTargets, RecordsService],
  exports: [DefinitionsRepository, DefinitionsService, LinkTargets, RecordsService],
})
export class RecordsModule {}
