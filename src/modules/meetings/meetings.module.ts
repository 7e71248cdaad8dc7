import { Module, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../../common/background/job-queue';
import { JobQueueModule } from '../../common/background/job-queue.module';
import { FilesModule } from '../files/files.module';
import { MembersModule } from '../members/members.module';
import { MeetingsController } from './meetings.controller';
import { MeetingsRepository } from './meetings.repository';
import { MeetingsService } from './meetings.service';
import { TRANSCRIPT_BACKFILL_TASK, TranscriptIndex } from './transcript-index';

@Module({
  imports: [FilesModule, MembersModule, JobQueueModule],
  controllers: [MeetingsController],
  providers: [MeetingsRepository, MeetingsService, TranscriptIndex],
  exports: [MeetingsService],
})
export class MeetingsModule implements OnModuleInit {
  constructor(
    private readonly queue: JobQueue,
    private readonly transcripts: TranscriptIndex,
  ) {}

  onModuleInit(): void {
    this.queue.register(TRANSCRIPT_BACKFILL_TASK, async () => {
      await this.transcripts.backfill();
    });
  }
}
