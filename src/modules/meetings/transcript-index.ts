import { Injectable } from '@nestjs/common';
import { FilesService } from '../files/files.service';
import { SearchIndex } from '../search/search-index';

/**
 * How much of a transcript search indexes: about four hours of speech. Its words are kept without
 * positions, so that no transcript, however many distinct words it has, exceeds the 1 MB a
 * PostgreSQL tsvector can hold.
 */
export const INDEXED_TRANSCRIPT_BYTES = 256 * 1024;

/** A cue's timing line in WebVTT or SubRip (`00:01.000 --> 00:04.000`), and the header: no words of the meeting. */
const NOT_SPOKEN = /^(?:WEBVTT.*|.*-->.*|\d+)$/gm;

/**
 * The words of meetings' transcripts for search (docs/api.md §14), in the meeting's search
 * document (`transcript_words`), where only callers with FULL access to the meeting match them.
 * The file's bytes are in file storage: they are read outside the transaction where the file is
 * known to be completed (its bytes never change after), and inside it only when the file completed
 * in between.
 */
@Injectable()
export class TranscriptIndex {
  constructor(
    private readonly files: FilesService,
    private readonly search: SearchIndex,
  ) {}

  /** The text search indexes of the file, or null while it is not a COMPLETED file of the workspace. */
  async textOf(workspaceId: string, fileId: string): Promise<string | null> {
    const bytes = await this.files.completedStart(workspaceId, fileId, INDEXED_TRANSCRIPT_BYTES);
    if (!bytes) return null;
    // A multi-byte character cut at the end decodes as U+FFFD, which no word holds; NUL cannot be stored.
    return new TextDecoder().decode(bytes).replace(NOT_SPOKEN, ' ').replaceAll('\u0000', ' ');
  }

  /** Indexes the transcript `fileId` as meeting `meetingId`'s, in the caller's transaction; `text` is what textOf read before it, if anything. */
  async index(workspaceId: string, meetingId: string, fileId: string, text: string | null): Promise<void> {
    const words = text ?? (await this.textOf(workspaceId, fileId)) ?? '';
    await this.search.indexTranscript(meetingId, words);
  }
}
