import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { FilesRepository } from './files.repository';
import { FileStorage } from './storage/file-storage';

const BATCH = 100;

/**
 * Deletes the bytes that no file will ever use (docs/api.md §10): those of EXPIRED and CANCELLED
 * uploads, and what an S3 upload URL left beside a completed file. It waits for the session's
 * deadline, when the upload URL stops working, so nothing can be written after the sweep; each file
 * is swept once (`swept_at`). Instances sweep side by side: rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, one batch per transaction.
 */
@Injectable()
export class FileSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('FileSweeper');
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly files: FilesRepository,
    private readonly storage: FileStorage,
    private readonly transactions: Transactions,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    const seconds = this.config.fileSweepIntervalSeconds;
    if (seconds === 0) return;
    const run = () => void this.sweep().catch((error: unknown) => this.logger.error({ err: error }, 'file sweep failed'));
    this.timer = setInterval(run, seconds * 1000);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Sweeps until nothing is left; returns how many files it swept. One run at a time per instance. */
  sweep(): Promise<number> {
    this.running ??= this.sweepAll().finally(() => (this.running = undefined));
    return this.running;
  }

  private async sweepAll(): Promise<number> {
    let total = 0;
    for (;;) {
      const swept = await this.transactions.run(async (manager) => {
        const files = await this.files.lockSweepable(manager, BATCH);
        for (const file of files) {
          if (file.status === 'COMPLETED') await this.storage.deleteUploadLeftovers(file);
          else await this.storage.deleteAll(file);
        }
        if (files.length > 0) await this.files.markSwept(manager, files.map((file) => file.id));
        return files.length;
      });
      total += swept;
      if (swept < BATCH) return total;
    }
  }
}
