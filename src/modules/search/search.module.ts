import { Module } from '@nestjs/common';
import { MeetingsModule } from '../meetings/meetings.module';
import { SearchController } from './search.controller';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';

@Module({ imports: [MeetingsModule], controllers: [SearchController], providers: [SearchRepository, SearchService] })
export class SearchModule {}
