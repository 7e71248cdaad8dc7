import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../../common/background/job-queue';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { ChangeEvents } from '../../records/change-events';
import { FilesRepository, toFileDto } from './files.repository';
import { FileStorage } from './storage/file-storage';

const BATCH = 100;
/** Longer than a batch's deletions take: a claim that runs out is a sweeper that died. */
const CLAIM_SECONDS = 15 * 60;

/**
 * Records the expiry of uploads (their `file.expired` events, docs/api.md §12) and deletes the
 * bytes that no file will ever use (docs/api.md §10): those of EXPIRED and CANCELLED
 * uploads, and what an upload URL or an unused snapshot left beside a completed file's bytes. It
 * waits for the session's deadline, when the upload URL stops working and no complete can commit
 * any more, so nothing can be written after the sweep; each file is swept once (`swept_at`).
 * It runs every FILE_SWEEP_INTERVAL_SECONDS (whole minutes, counted from midnight UTC), by one of
 * the workers (JobQueue's schedule). Sweeps may still overlap (a run longer than the period, a
 * sweep asked for by hand): each claims a batch for a while in one statement, deletes outside any
 * transaction (storage can be slow; a transaction would hold a pooled connection meanwhile), then
 * marks it swept. A batch whose sweeper died is claimed again when its claim runs out.
 */
@Injectable()
export class FileSweeper implements OnModuleInit {
  constructor(
    private readonly files: FilesRepository,
    private readonly storage: FileStorage,
    private readonly transactions: Transactions,
    private readonly events: ChangeEvents,
    private readonly config: AppConfig,
    private readonly queue: JobQueue,
  ) {}

  onModuleInit(): void {
    const minutes = this.config.fileSweepIntervalSeconds / 60;
    if (minutes === 0) return;
    this.queue.schedule({
      task: 'file_sweep',
      what: 'file sweep',
      when: ({ hour, min }) => (hour * 60 + min) % minutes === 0,
      run: () => this.sweep(),
    });
  }

  /** Sweeps until nothing is left; returns how many files it swept. */
  async sweep(): Promise<number> {
    await this.recordExpiries();
    let total = 0;
    for (;;) {
      const files = await this.files.claimSweepable(BATCH, CLAIM_SECONDS);
      for (const file of files) await this.storage.deleteUnused(file);
      if (files.length > 0) await this.files.markSwept(files.map((file) => file.id));
      total += files.length;
      if (files.length < BATCH) return total;
    }
  }

  /**
   * A PENDING file expires when its deadline passes, with no write to record it: its `file.expired`
   * event is written here, in a batch's transaction with the mark that it is written.
   */
  private async recordExpiries(): Promise<void> {
    for (;;) {
      const expired = await this.transactions.run(async () => {
        const files = await this.files.claimUnrecordedExpiries(BATCH);
        for (const file of files) {
          this.events.record({
            workspaceId: file.workspaceId,
            entityType: 'file',
            entityId: file.id,
            action: 'expired',
            data: toFileDto(file),
          });
        }
        return files.length;
      });
      if (expired < BATCH) return;
    }
  }
}
