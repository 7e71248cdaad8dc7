import { Global, Module } from '@nestjs/common';
import { DefinitionsService } from './definitions.service';
import { RecordsService } from './records.service';

/** The records core: shared by every record type's module. */
@Global()
@Module({ providers: [DefinitionsService, RecordsService], exports: [DefinitionsService, RecordsService] })
export class RecordsModule {}
