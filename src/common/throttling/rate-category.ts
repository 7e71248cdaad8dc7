export const RATE_CATEGORIES = ['read', 'write', 'search'] as const;
export type RateCategory = (typeof RATE_CATEGORIES)[number];
