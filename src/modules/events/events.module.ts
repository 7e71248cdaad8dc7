import { Module } from '@nestjs/common';
import { JobQueueModule } from '../../common/background/job-queue.module';
import { FilesModule } from '../files/files.module';
import { MeetingsModule } from '../meetings/meetings.module';
import { EventPruner } from './event-pruner';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';
import { FeedWaits } from './feed-waits';
import { RecordsModule } from '../../records/records.module';

@Module({
  imports: [RecordsModule, JobQueueModule, MeetingsModule, FilesModule],
  controllers: [EventsController],
  providers: [EventsService, EventPruner, FeedWaits],
  exports: [EventsService, FeedWaits],
})
export class EventsModule {}
