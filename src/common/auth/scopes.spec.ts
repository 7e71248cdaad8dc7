import { insufficientScope, type Scope } from './scopes';

describe('insufficientScope (every 403 insufficient_scope)', () => {
  const granted = new Set<Scope>(['notes:read', 'webhooks:write']);

  it('names the scope required and missing', () => {
    const error = insufficientScope('Reading task.created events', ['tasks:read'], granted);
    expect([error.status, error.code, error.message]).toEqual([
      403,
      'insufficient_scope',
      'Reading task.created events requires the scope tasks:read; missing: tasks:read',
    ]);
  });

  it('names every scope required once, in the order given, and only the missing ones as missing', () => {
    const error = insufficientScope(
      'This operation',
      ['notes:read', 'tasks:read', 'lists:read', 'tasks:read'],
      granted,
    );
    expect(error.message).toBe(
      'This operation requires the scopes notes:read, tasks:read and lists:read; missing: tasks:read, lists:read',
    );
  });
});
