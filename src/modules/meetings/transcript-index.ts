import { Injectable } from '@nestjs/common';
import { Transactions } from '../../database/transactions';
import { FilesRepository } from '../files/files.repository';
import { FileStorage } from '../files/storage/file-storage';

/**
 * How much of a transcript search indexes: about four hours of speech. Its words are kept without
 * positions, so that no transcript, however many distinct words it has, exceeds the 1 MB a
 * PostgreSQL tsvector can hold.
 */
export const INDEXED_TRANSCRIPT_BYTES = 256 * 1024;

/** The queue's task that indexes the transcripts linked before transcripts were searchable (enqueued once, by a migration). */
export const TRANSCRIPT_BACKFILL_TASK = 'search_transcript_backfill';

/** Meetings a backfill reads and indexes at a time. */
const BACKFILL_BATCH = 100;

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
    private readonly transactions: Transactions,
    private readonly files: FilesRepository,
    private readonly storage: FileStorage,
  ) {}

  /** The text search indexes of the file, or null while it is not a COMPLETED file of the workspace. */
  async textOf(workspaceId: string, fileId: string): Promise<string | null> {
    const file = await this.files.findById(fileId);
    if (!file || file.workspaceId !== workspaceId || file.status !== 'COMPLETED') return null;
    const bytes = await this.storage.readStart(file, INDEXED_TRANSCRIPT_BYTES);
    // A multi-byte character cut at the end decodes as U+FFFD, which no word holds; NUL cannot be stored.
    return new TextDecoder().decode(bytes).replace(NOT_SPOKEN, ' ').replaceAll('\u0000', ' ');
  }

  /** Indexes the transcript `fileId` as meeting `meetingId`'s, in the caller's transaction; `text` is what textOf read before it, if anything. */
  async index(workspaceId: string, meetingId: string, fileId: string, text: string | null): Promise<void> {
    const words = text ?? (await this.textOf(workspaceId, fileId)) ?? '';
    await this.transactions.query(
      `UPDATE search_documents SET transcript_words = strip(to_tsvector('simple', search_unaccent($2))) WHERE record_id = $1`,
      [meetingId, words],
    );
  }

  /**
   * Indexes every transcript whose meeting's document holds no transcript words yet: those linked
   * before transcripts were searchable, which a migration cannot read from file storage. A meeting
   * whose transcript changed meanwhile is left to the write that changed it (its link is checked in
   * the statement). Returns how many it indexed.
   */
  async backfill(): Promise<number> {
    let after = '';
    let indexed = 0;
    for (;;) {
      const batch = await this.transactions.query<{ workspace_id: string; meeting_id: string; file_id: string }>(
        `SELECT l.workspace_id, l.source_id AS meeting_id, l.target_id AS file_id
           FROM record_links l
           JOIN search_documents d ON d.record_id = l.source_id AND d.workspace_id = l.workspace_id
          WHERE l.link = 'meeting:$transcript' AND d.transcript_words = ''::tsvector AND l.source_id > $1
          ORDER BY l.source_id
          LIMIT ${BACKFILL_BATCH}`,
        [after],
      );
      for (const { workspace_id: workspaceId, meeting_id: meetingId, file_id: fileId } of batch) {
        const text = await this.textOf(workspaceId, fileId);
        if (text === null) continue;
        const updated = await this.transactions.query<{ record_id: string }>(
          `UPDATE search_documents d SET transcript_words = strip(to_tsvector('simple', search_unaccent($3)))
            WHERE d.record_id = $1 AND d.workspace_id = $4 AND d.transcript_words = ''::tsvector
              AND EXISTS (SELECT 1 FROM record_links l
                           WHERE l.source_id = $1 AND l.workspace_id = $4 AND l.link = 'meeting:$transcript' AND l.target_id = $2)
            RETURNING d.record_id`,
          [meetingId, fileId, text, workspaceId],
        );
        indexed += updated.length;
      }
      if (batch.length < BACKFILL_BATCH) return indexed;
      after = batch[batch.length - 1].meeting_id;
    }
  }
}
