import { Injectable } from '@nestjs/common';
import { randomInt } from 'node:crypto';

/** The time as the delivery policy reads it: a provider, so that tests set it rather than wait for it. */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }
}

/** WEBHOOK_RETRY_SCHEDULE (seconds before attempt 1, 2, …) and WEBHOOK_DISABLE_AFTER_HOURS. */
export interface RetrySettings {
  retrySchedule: readonly number[];
  disableAfterHours: number;
}

/** A failed attempt, as the policy judges it. */
export interface FailedAttempt {
  /** Its number: 1 for an event's first attempt to the endpoint. */
  attempt: number;
  /** The receiver's status, null when it gave none. */
  status: number | null;
  /** A 429's or 503's Retry-After, in seconds. */
  retryAfterSeconds: number | null;
  attemptedAt: Date;
  /** When the endpoint's streak of failures began, null when its last attempt succeeded. */
  failingSince: Date | null;
  /** Refused by the service (key revoked, type unreadable, endpoint disabled…): not retried, nothing said of the receiver. */
  final?: boolean;
}

/** What follows a failed attempt: the endpoint's failing streak, the next attempt's due time (null: none), and why the endpoint is disabled, if it is. */
export interface AfterFailure {
  failingSince: Date | null;
  next: Date | null;
  disabledReason: string | null;
}

/** A draw in [-spread, spread] milliseconds. */
export type Jitter = (spreadMs: number) => number;
const randomJitter: Jitter = (spreadMs) => (spreadMs > 0 ? randomInt(-spreadMs, spreadMs + 1) : 0);

/**
 * When the attempt after number `attempt` is due, from `now`: the schedule's delay ± 10 %, or a
 * longer Retry-After; null after the schedule's last.
 */
export function nextAttemptAt(
  settings: RetrySettings,
  attempt: number,
  retryAfterSeconds: number | null,
  now: Date,
  jitter = randomJitter,
): Date | null {
  if (attempt >= settings.retrySchedule.length) return null;
  const delaySeconds = settings.retrySchedule[attempt];
  const scheduled = delaySeconds * 1000 + jitter(Math.round(delaySeconds * 100));
  return new Date(now.getTime() + Math.max(scheduled, (retryAfterSeconds ?? 0) * 1000));
}

/**
 * What follows a failed attempt (docs/api.md §13), at `now`: it starts or continues the
 * endpoint's failing streak and is retried on the schedule, unless the receiver answered 410 Gone
 * or the streak has lasted WEBHOOK_DISABLE_AFTER_HOURS, which disable the endpoint. A `final`
 * attempt is not retried and says nothing of the receiver, so the streak is left as it was.
 */
export function afterFailure(
  settings: RetrySettings,
  failed: FailedAttempt,
  now: Date,
  jitter = randomJitter,
): AfterFailure {
  const judged = !failed.final;
  const failingSince = judged ? (failed.failingSince ?? failed.attemptedAt) : failed.failingSince;
  let disabledReason: string | null = null;
  if (judged && failed.status === 410) disabledReason = 'the receiver answered 410 Gone';
  if (
    judged &&
    failingSince &&
    failed.attemptedAt.getTime() - failingSince.getTime() >= settings.disableAfterHours * 3600_000
  ) {
    disabledReason = `every attempt failed for ${settings.disableAfterHours} hours`;
  }
  const next =
    judged && !disabledReason ? nextAttemptAt(settings, failed.attempt, failed.retryAfterSeconds, now, jitter) : null;
  return { failingSince, next, disabledReason };
}
