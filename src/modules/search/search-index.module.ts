import { Module } from '@nestjs/common';
import { SearchIndex } from './search-index';
import { SearchRepository } from './search.repository';

/**
 * The index other modules write search documents through (meetings' transcripts): a module apart
 * from the search module, which reads meetings to redact its hits and so cannot be imported by them.
 */
@Module({
  providers: [SearchRepository, SearchIndex],
  exports: [SearchIndex],
})
export class SearchIndexModule {}
