import type { ExecutionContext } from '@nestjs/common';

/** The buckets of docs/api.md §4, each a named throttler of the ThrottlerModule. */
export const RATE_CATEGORIES = ['read', 'write', 'search'] as const;
export type RateCategory = (typeof RATE_CATEGORIES)[number];

/** Handler metadata: the bucket a `/v1` operation is counted in (set by `@Endpoint`). */
export const RATE_CATEGORY = 'throttle:category';

export function rateCategoryOf(context: ExecutionContext): RateCategory | undefined {
  return Reflect.getMetadata(RATE_CATEGORY, context.getHandler()) as RateCategory | undefined;
}
