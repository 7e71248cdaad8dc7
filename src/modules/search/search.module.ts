import { Module } from '@nestjs/common';
import { MeetingsModule } from '../meetings/meetings.module';
import { SearchController } from './search.controller';
import { SearchRepository } from './search.repository';
import { SearchService } from './search.service';
import { RecordsModule } from '../../records/records.module';

@Module({
  imports: [RecordsModule, MeetingsModule],
  controllers: [SearchController],
  providers: [SearchRepository, SearchService],
})
export class SearchModule {}
