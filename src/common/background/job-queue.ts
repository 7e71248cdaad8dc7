import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import {
  type CronMatcher,
  Logger as QueueLogger,
  parseCronItems,
  run,
  type Runner,
  type Task,
  type WorkerEvents,
} from 'graphile-worker';
import { AppConfig } from '../../config/app-config';
import { OwnConnections, type OwnPool } from '../../database/own-connections';
import { SessionLock, SessionLocks } from '../../database/session-locks';

/** Jobs one worker runs at once: most of a delivery attempt is waiting on a receiver. */
const CONCURRENCY = 8;
/** The queue's connections: its jobs' plus its poller's and its schedule's (graphile-worker's default). */
const QUEUE_POOL_SIZE = 10;
/**
 * At shutdown, how long the jobs under way may go on before they are aborted (a delivery attempt
 * is then recorded as cut off, its next one due): what follows the service's HTTP drain has 5 s
 * in all (main.ts), and an attempt may otherwise wait for its receiver up to its 15 s timeout.
 */
const SHUTDOWN_CUT_OFF_MS = 2000;

/** A job's work: `shutdown` aborts when the worker stops, after SHUTDOWN_CUT_OFF_MS. */
export type JobHandler = (payload: unknown, shutdown: AbortSignal) => Promise<void>;

/**
 * Work a worker does for as long as it runs, beside its jobs: `stopping` aborts when the worker
 * begins to stop (take no new work), `shutdown` SHUTDOWN_CUT_OFF_MS later (cut off what is under
 * way); it ends once its work under way is recorded.
 */
export type AlongsideWork = (instanceId: string, stopping: AbortSignal, shutdown: AbortSignal) => Promise<void>;

/** Work done once per period by one of the workers, whichever takes its job first. */
export interface PeriodicWork {
  /** The task's name in the queue, also the schedule's identifier (kept across restarts). */
  task: string;
  /** For the log line of a run that failed. */
  what: string;
  /** A cron pattern (UTC), or a function of the minute. */
  when: string | CronMatcher;
  run(): Promise<unknown>;
}

/**
 * The job queue (graphile-worker, in PostgreSQL), run by the processes of the `worker` role
 * (ROLES): delivery attempts and the periodic work (retention, sweeps, recovery), which the
 * modules register as they initialise. Any process enqueues, in its own transactions (a trigger
 * calls `graphile_worker.add_job`); an `api` process and the CLI run no job and open no
 * connection for the queue. The queue's schema comes with the migrations.
 *
 * The periodic work is graphile-worker's schedule (its crontab): each period's run is one job, so
 * however many workers run, each piece of work runs once per period. A run that fails is logged
 * and waits for the next period.
 *
 * Each worker holds, for its life, a session lock named after its worker pool, whose id
 * graphile-worker marks each job it takes with (`locked_by`): another worker that finds the lock
 * free knows the worker is gone (see WebhookQueue's recovery). The lock is taken again whenever
 * its session reconnects (SessionLocks.keep).
 */
@Injectable()
export class JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobQueue');
  private readonly handlers = new Map<string, JobHandler>();
  private readonly periodic: PeriodicWork[] = [];
  private readonly alongsideWork: { what: string; work: AlongsideWork }[] = [];
  private alongsideRuns: Promise<void>[] = [];
  private readonly stopping = new AbortController();
  private readonly shutdown = new AbortController();
  private id?: string;
  private runner?: Runner;
  private liveness?: SessionLock;
  private pool?: OwnPool;

  constructor(
    private readonly config: AppConfig,
    private readonly connections: OwnConnections,
    private readonly locks: SessionLocks,
  ) {}

  /** The name of the lock a worker holds while it runs. */
  static livenessLock(instanceId: string): string {
    return `job-queue-worker:${instanceId}`;
  }

  /** This worker's id (its worker pool's), once it runs; undefined in a process that runs no queue. */
  get instanceId(): string | undefined {
    return this.id;
  }

  /** Registers the task that runs the jobs named `task`; at module init, before the queue starts. */
  register(task: string, handler: JobHandler): void {
    if (this.handlers.has(task)) throw new Error(`job task ${task} is registered twice`);
    this.handlers.set(task, handler);
  }

  /** Registers periodic work; at module init, before the queue starts. */
  schedule(work: PeriodicWork): void {
    this.register(work.task, async () => {
      try {
        await work.run();
      } catch (error) {
        this.logger.error({ err: error }, `${work.what} failed; it runs again next period`);
      }
    });
    this.periodic.push(work);
  }

  /** Registers work done beside the jobs, for the worker's life; at module init, before the queue starts. */
  alongside(what: string, work: AlongsideWork): void {
    this.alongsideWork.push({ what, work });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.roles.worker) return;
    // Made and ended here rather than by graphile-worker, which ends a pool it makes without awaiting it, its error handler already removed.
    // On DATABASE_DIRECT_URL when set (OwnConnections): the queue LISTENs for new jobs and names its statements.
    this.pool = this.connections.pool('job queue', QUEUE_POOL_SIZE);
    try {
      await this.start(this.pool);
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  private async start(pgPool: OwnPool): Promise<void> {
    const logger = new QueueLogger(() => (level: string, message: string) => {
      if (level === 'error') this.logger.error(message);
      else if (level === 'warning') this.logger.warn(message);
    });
    const events: WorkerEvents = new EventEmitter();
    // Emitted as run() makes the worker pool, before any of its workers takes a job.
    events.once('pool:create', ({ workerPool }) => (this.id = workerPool.id));
    const taskList: Record<string, Task> = {};
    for (const [task, handler] of this.handlers)
      taskList[task] = (payload, helpers) => handler(payload, helpers.abortSignal);
    this.runner = await run({
      pgPool,
      concurrency: CONCURRENCY,
      noHandleSignals: true,
      pollInterval: 1000,
      gracefulShutdownAbortTimeout: SHUTDOWN_CUT_OFF_MS,
      // Unbatched (the default), a job's completion is sent without being awaited, so stop() could
      // resolve before it was (and the pool end under it); batched, stop() awaits the batch's flush.
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      events,
      logger,
      taskList,
      // A period missed while no worker ran is not made up: the next run does its work.
      parsedCronItems: parseCronItems(
        this.periodic.map(({ task, when }) => ({
          task,
          identifier: task,
          match: when,
          options: { backfillPeriod: 0, maxAttempts: 1 },
        })),
      ),
    });
    // Taken as the pool starts: the recovery acts only on claims and jobs a minute old.
    this.liveness = await this.locks.keep(JobQueue.livenessLock(this.id!));
    this.alongsideRuns = this.alongsideWork.map(({ what, work }) =>
      work(this.id!, this.stopping.signal, this.shutdown.signal).catch((error: unknown) =>
        this.logger.error({ err: error }, `${what} stopped on an error`),
      ),
    );
  }

  /**
   * Before any module's onApplicationShutdown: the pool (TypeORM's, closed in its own) and the
   * session of the liveness lock (SessionLocks') must outlive the jobs under way, which record
   * their outcome. Both modules are global, as this one is, and Nest gives no order among them.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /**
   * Takes no new job or work, lets what is under way finish (what still runs after
   * SHUTDOWN_CUT_OFF_MS is aborted), and releases the queue's jobs.
   */
  private async stop(): Promise<void> {
    this.stopping.abort();
    const cutOff = setTimeout(() => this.shutdown.abort(), SHUTDOWN_CUT_OFF_MS);
    await Promise.all([...this.alongsideRuns, this.runner?.stop()]);
    clearTimeout(cutOff);
    await this.pool?.end();
    await this.liveness?.release();
  }
}
