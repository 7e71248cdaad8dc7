import { Module } from '@nestjs/common';
import { FilesModule } from '../files/files.module';
import { MeetingsModule } from '../meetings/meetings.module';
import { EventPruner } from './event-pruner';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';

@Module({ imports: [MeetingsModule, FilesModule], controllers: [EventsController], providers: [EventsService, EventPruner], exports: [EventsService] })
export class EventsModule {}
