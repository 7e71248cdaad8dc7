import { MigrationInterface, QueryRunner } from 'typeorm';

/** The task MeetingsModule registers (TRANSCRIPT_BACKFILL_TASK); a migration does not import the modules above it. */
const TASK = 'search_transcript_backfill';

/**
 * Transcripts linked before they were searchable hold no words in their meeting's search document,
 * and their bytes are in file storage, which a migration cannot read: one job, run by a worker once,
 * indexes them (TranscriptIndex.backfill). Its job key keeps it one however often this runs.
 */
export class TranscriptBackfill1795887700000 implements MigrationInterface {
  name = 'TranscriptBackfill1795887700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`SELECT graphile_worker.add_job($1, '{}'::json, job_key := $1)`, [TASK]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`SELECT graphile_worker.remove_job($1)`, [TASK]);
  }
}
