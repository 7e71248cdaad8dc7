import { Module } from '@nestjs/common';
import { JobQueue } from './job-queue';

/** The one queue: each module that has background work imports this and registers its work as it initialises. */
@Module({ providers: [JobQueue], exports: [JobQueue] })
export class JobQueueModule {}
