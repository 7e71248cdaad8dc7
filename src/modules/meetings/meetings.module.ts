import { Module } from '@nestjs/common';
import { FilesModule } from '../files/files.module';
import { MembersModule } from '../members/members.module';
import { MeetingsController } from './meetings.controller';
import { MeetingsRepository } from './meetings.repository';
import { MeetingsService } from './meetings.service';
import { TranscriptIndex } from './transcript-index';

@Module({
  imports: [FilesModule, MembersModule],
  controllers: [MeetingsController],
  providers: [MeetingsRepository, MeetingsService, TranscriptIndex],
  exports: [MeetingsService],
})
export class MeetingsModule {}
