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
