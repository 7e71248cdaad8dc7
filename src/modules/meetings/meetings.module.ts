import { Module } from '@nestjs/common';
import { FilesModule } from '../files/files.module';
import { MembersModule } from '../members/members.module';
import { MeetingsController } from './meetings.controller';
import { MeetingsRepository } from './meetings.repository';
import { MeetingsService } from './meetings.service';
import { TranscriptIndex } from './transcript-index';
import { SearchIndexModule } from '../search/search-index.module';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

@Module({
  imports: [RecordsModule, IdempotencyModule, FilesModule, MembersModule, SearchIndexModule],
  controllers: [MeetingsController],
  providers: [MeetingsRepository, MeetingsService, TranscriptIndex],
  exports: [MeetingsService],
})
export class MeetingsModule {}
