import { afterFailure, Clock, nextAttemptAt, RetrySettings } from './webhook-retry-policy';

const HOUR = 3600_000;
const settings: RetrySettings = { retrySchedule: [0, 5, 300], disableAfterHours: 120 };
const now = new Date('2026-11-28T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const later = (ms: number) => new Date(now.getTime() + ms);
const noJitter = () => 0;
const failure = (overrides: Partial<Parameters<typeof afterFailure>[1]> = {}) => ({
  attempt: 1,
  status: 500,
  retryAfterSeconds: null,
  attemptedAt: now,
  failingSince: null,
  ...overrides,
});

describe('nextAttemptAt', () => {
  it('is the schedule’s delay after the attempt’s number, from now', () => {
    expect(nextAttemptAt(settings, 1, null, now, noJitter)).toEqual(later(5000));
    expect(nextAttemptAt(settings, 2, null, now, noJitter)).toEqual(later(300_000));
  });

  it('is none after the schedule’s last', () => {
    expect(nextAttemptAt(settings, 3, null, now, noJitter)).toBeNull();
  });

  it('jitters by at most 10 % of the delay, either way', () => {
    const spreads: number[] = [];
    nextAttemptAt(settings, 2, null, now, (spread) => (spreads.push(spread), 0));
    expect(spreads).toEqual([30_000]);
    for (let draw = 0; draw < 200; draw += 1) {
      const due = nextAttemptAt(settings, 2, null, now)!.getTime() - now.getTime();
      expect(due).toBeGreaterThanOrEqual(270_000);
      expect(due).toBeLessThanOrEqual(330_000);
    }
  });

  it('waits for a longer Retry-After, and not for a shorter one', () => {
    expect(nextAttemptAt(settings, 1, 60, now, noJitter)).toEqual(later(60_000));
    expect(nextAttemptAt(settings, 2, 60, now, noJitter)).toEqual(later(300_000));
  });
});

describe('afterFailure', () => {
  it('starts the endpoint’s failing streak at the first failure, and retries on the schedule', () => {
    expect(afterFailure(settings, failure(), now, noJitter)).toEqual({
      failingSince: now,
      next: later(5000),
      disabledReason: null,
    });
  });

  it('keeps a streak that began earlier', () => {
    expect(afterFailure(settings, failure({ failingSince: ago(HOUR) }), now, noJitter)).toEqual({
      failingSince: ago(HOUR),
      next: later(5000),
      disabledReason: null,
    });
  });

  it('disables the endpoint once every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS, and makes no next attempt', () => {
    expect(
      afterFailure(settings, failure({ failingSince: ago(120 * HOUR - 1) }), now, noJitter).disabledReason,
    ).toBeNull();
    expect(afterFailure(settings, failure({ failingSince: ago(120 * HOUR) }), now, noJitter)).toEqual({
      failingSince: ago(120 * HOUR),
      next: null,
      disabledReason: 'every attempt failed for 120 hours',
    });
  });

  it('disables the endpoint at once when the receiver answers 410 Gone', () => {
    expect(afterFailure(settings, failure({ status: 410 }), now, noJitter)).toEqual({
      failingSince: now,
      next: null,
      disabledReason: 'the receiver answered 410 Gone',
    });
  });

  it('retries a refusal of the receiver’s after its Retry-After', () => {
    expect(afterFailure(settings, failure({ status: 503, retryAfterSeconds: 120 }), now, noJitter).next).toEqual(
      later(120_000),
    );
  });

  it('gives up after the schedule’s last attempt, the endpoint left enabled', () => {
    expect(afterFailure(settings, failure({ attempt: 3 }), now, noJitter)).toEqual({
      failingSince: now,
      next: null,
      disabledReason: null,
    });
  });

  it('neither retries a final attempt (refused by the service) nor counts it in the streak, whatever the receiver', () => {
    expect(afterFailure(settings, failure({ final: true, status: 410 }), now, noJitter)).toEqual({
      failingSince: null,
      next: null,
      disabledReason: null,
    });
    expect(afterFailure(settings, failure({ final: true, failingSince: ago(200 * HOUR) }), now, noJitter)).toEqual({
      failingSince: ago(200 * HOUR),
      next: null,
      disabledReason: null,
    });
  });
});

describe('Clock', () => {
  it('tells the time now', () => {
    const before = Date.now();
    const told = new Clock().now().getTime();
    expect(told).toBeGreaterThanOrEqual(before);
    expect(told).toBeLessThanOrEqual(Date.now());
  });
});
