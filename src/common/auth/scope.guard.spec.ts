import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { thrownApiError } from '../../../test/support/errors';
import { httpContext } from '../../../test/support/execution-context';
import { ApiError } from '../errors/api-error';
import { REQUIRED_SCOPES } from './auth.decorators';
import { ScopeGuard } from './scope.guard';
import type { Scope } from './scopes';

function handlerRequiring(scopes: Scope[] | undefined): () => void {
  const handler = () => undefined;
  if (scopes !== undefined) SetMetadata(REQUIRED_SCOPES, scopes)(handler);
  return handler;
}

function check(required: Scope[] | undefined, granted: Scope[] | undefined): boolean {
  const request = granted === undefined ? {} : { auth: { scopes: new Set(granted) } };
  return new ScopeGuard(new Reflector()).canActivate(httpContext(request, handlerRequiring(required)));
}

function refusal(required: Scope[], granted: Scope[] | undefined): ApiError {
  return thrownApiError(() => check(required, granted));
}

describe('ScopeGuard', () => {
  it('lets a route that requires no scope through', () => {
    expect(check(undefined, [])).toBe(true);
    expect(check([], [])).toBe(true);
    expect(check(undefined, undefined)).toBe(true);
  });

  it('lets a key with the required scopes through', () => {
    expect(check(['members:read'], ['members:read'])).toBe(true);
    expect(check(['notes:read', 'notes:update'], ['notes:update', 'tasks:read', 'notes:read'])).toBe(true);
  });

  it('answers 403 insufficient_scope naming the scope required', () => {
    const error = refusal(['members:read'], ['notes:read']);
    expect([error.status, error.code]).toEqual([403, 'insufficient_scope']);
    expect(error.message).toBe('This operation requires the scope members:read; missing: members:read');
  });

  it('requires every listed scope, naming all and the missing ones', () => {
    const error = refusal(['notes:read', 'notes:update'], ['notes:read']);
    expect(error.status).toBe(403);
    expect(error.message).toBe('This operation requires the scopes notes:read and notes:update; missing: notes:update');
  });

  it('refuses when the request carries no authentication at all', () => {
    expect(refusal(['members:read'], undefined).code).toBe('insufficient_scope');
  });
});
