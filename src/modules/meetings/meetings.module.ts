import { Module } from '@nestjs/common';
import { FilesModule } from '../files/files.module';
import { MembersModule } from '../members/members.module';
import { MeetingsController } from './meetings.controller';
import { MeetingsRepository } from './meetings.repository';
import { MeetingsService } from './meetings.service';

@Module({ imports: [FilesModule, MembersModule], controllers: [MeetingsController], providers: [MeetingsRepository, MeetingsService], exports: [MeetingsService] })
export class MeetingsModule {}
