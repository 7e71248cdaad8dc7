import { Global, Module } from '@nestjs/common';
import { JobQueue } from './job-queue';

/** Global: each module that has background work registers it on the one queue as it initialises. */
@Global()
@Module({ providers: [JobQueue], exports: [JobQueue] })
export class JobQueueModule {}
