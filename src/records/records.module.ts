import { Global, Module } from '@nestjs/common';
import { DefinitionsRepository } from './definitions.repository';
import { DefinitionsService } from './definitions.service';
import { RecordsService } from './records.service';

/** The records core: shared by every record type's module. */
@Global()
@Module({
  providers: [DefinitionsRepository, DefinitionsService, RecordsService],
  exports: [DefinitionsRepository, DefinitionsService, RecordsService],
})
export class RecordsModule {}
