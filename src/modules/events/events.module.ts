import { Module } from '@nestjs/common';
import { JobQueueModule } from '../../common/background/job-queue.module';
import { FilesModule } from '../files/files.module';
import { MeetingsModule } from '../meetings/meetings.module';
import { EventPruner } from './event-pruner';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';
import { RecordsModule } from '../../records/records.module';

@Module({
  imports: [RecordsModule, JobQueueModule, MeetingsModule, FilesModule],
  controllers: [EventsController],
  providers: [EventsService, EventPruner],
  exports: [EventsService],
})
export class EventsModule {}
