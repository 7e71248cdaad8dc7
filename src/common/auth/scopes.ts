import { ApiError } from '../errors/api-error';

/** Every public scope (docs/api.md §6): the spec's 17 and the ones this service adds. */
export const SCOPES = [
  'notes:create',
  'notes:update',
  'notes:read',
  'meetings:create',
  'meetings:update',
  'meetings:read',
  'tasks:create',
  'tasks:update',
  'tasks:read',
  'lists:create',
  'lists:update',
  'lists:read',
  'accounts:read',
  'accounts:create',
  'accounts:update',
  'contacts:read',
  'contacts:create',
  'contacts:update',
  'opportunities:read',
  'opportunities:create',
  'opportunities:update',
  'files:create',
  'files:read',
  'members:read',
  'objects:read',
  'objects:create',
  'objects:update',
  'events:read',
  'webhooks:read',
  'webhooks:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Granting `*` grants every scope, including ones added later. */
export const ALL_SCOPES = '*';

/** The scopes a stored grant stands for, `*` expanded. */
export function expandScopes(granted: readonly string[]): Scope[] {
  return granted.includes(ALL_SCOPES) ? [...SCOPES] : SCOPES.filter((scope) => granted.includes(scope));
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}` : items.join('');
}

/**
 * The 403 of a key without a scope it needs, worded the one way every refusal is (docs/api.md §1):
 * what needs the scopes, which they are, and which of them the key lacks, each by name.
 */
export function insufficientScope(needing: string, required: readonly Scope[], granted: ReadonlySet<Scope>): ApiError {
  const scopes = [...new Set(required)];
  const missing = scopes.filter((scope) => !granted.has(scope));
  return new ApiError(
    403,
    'insufficient_scope',
    `${needing} requires the scope${scopes.length > 1 ? 's' : ''} ${listed(scopes)}; missing: ${missing.join(', ')}`,
  );
}
