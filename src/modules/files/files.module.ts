import { Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { JobQueueModule } from '../../common/background/job-queue.module';
import { AppConfig } from '../../config/app-config';
import { LinkTargets } from '../../records/link-targets';
import { FileSweeper } from './file-sweeper';
import { FileTransfersController } from './file-transfers.controller';
import { FileTransfersService } from './file-transfers.service';
import { FilesController } from './files.controller';
import { FilesRepository } from './files.repository';
import { FilesService } from './files.service';
import { FileStorage } from './storage/file-storage';
import { FileUrlSigner, resolveFileUrlSecret } from './storage/file-url-signer';
import { LocalFileStorage } from './storage/local-file-storage';
import { S3FileStorage } from './storage/s3-file-storage';
import { RecordsModule } from '../../records/records.module';
import { IdempotencyModule } from '../../common/idempotency/idempotency.module';

/** The storage driver of docs/api.md §10: S3 when S3_BUCKET is set, else the local one. */
function createStorage(config: AppConfig): FileStorage {
  if (config.s3) return new S3FileStorage(config.s3);
  return new LocalFileStorage(config.dataDir, config.publicUrl, new FileUrlSigner(resolveFileUrlSecret(config)));
}

/** Files: two-step uploads on pluggable storage, download URLs, and the sweep of dead uploads. */
@Module({
  imports: [RecordsModule, IdempotencyModule, JobQueueModule],
  controllers: [FilesController, FileTransfersController],
  providers: [
    { provide: FileStorage, inject: [AppConfig], useFactory: createStorage },
    FilesRepository,
    FilesService,
    FileTransfersService,
    FileSweeper,
  ],
  exports: [FilesService],
})
export class FilesModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly storage: FileStorage,
    private readonly targets: LinkTargets,
    private readonly files: FilesRepository,
  ) {}

  /** A meeting's `$transcript` links to a row of this module's table. */
  onModuleInit(): void {
    this.targets.register('file', this.files);
  }

  /** After the job queue stopped (before any module's shutdown), so no sweep is under way. */
  onApplicationShutdown(): void {
    this.storage.close();
  }
}
