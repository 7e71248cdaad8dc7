import type { ExecutionContext } from '@nestjs/common';

/** The buckets of docs/api.md §4, each a named throttler of the ThrottlerModule. */
export const RATE_CATEGORIES = ['read', 'write', 'search'] as const;
export type RateCategory = (typeof RATE_CATEGORIES)[number];

/** Handler metadata: the bucket a `/v1` operation is counted in (set by `@Endpoint`). */
export const RATE_CATEGORY = 'throttle:category';

/**
 * The throttler that counts the inputs of batch writes, per workspace, besides the call's own
 * count in the write bucket; a route whose handler has BATCH_ITEMS counts there its body's `inputs`.
 */
export const BATCH_ITEMS_THROTTLER = 'batch-items';
export const BATCH_ITEMS = 'throttle:batch-items';

/** How many inputs a request counts in the batch-items throttler: its body's `inputs`, on a batch route. */
export function batchItemsOf(context: ExecutionContext): number {
  if (Reflect.getMetadata(BATCH_ITEMS, context.getHandler()) !== true) return 0;
  const inputs = context.switchToHttp().getRequest<{ body?: { inputs?: unknown } }>().body?.inputs;
  return Array.isArray(inputs) ? inputs.length : 0;
}

export function rateCategoryOf(context: ExecutionContext): RateCategory | undefined {
  return Reflect.getMetadata(RATE_CATEGORY, context.getHandler()) as RateCategory | undefined;
}
