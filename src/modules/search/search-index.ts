import { Injectable } from '@nestjs/common';
import { SearchRepository } from './search.repository';

/**
 * What other modules put in search beside what the database's triggers index from the records
 * themselves: the words of a meeting's transcript, whose bytes are in file storage.
 */
@Injectable()
export class SearchIndex {
  constructor(private readonly search: SearchRepository) {}

  /** Indexes `words` as the transcript of meeting `meetingId`, in the caller's transaction; '' indexes none. */
  indexTranscript(meetingId: string, words: string): Promise<void> {
    return this.search.setTranscriptWords(meetingId, words);
  }
}
