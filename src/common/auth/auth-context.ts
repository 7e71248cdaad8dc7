import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { MemberRole } from '../../database/entities/member.entity';
import type { Scope } from './scopes';

/** Who is calling: set on the request by the authentication guard for every `/v1` route. */
export interface AuthContext {
  apiKeyId: string;
  workspaceId: string;
  memberId: string;
  memberRole: MemberRole;
  /** Meeting privacy (organiser, attendee) is decided by the member's email. */
  memberEmail: string;
  /** `workspaces.metadata_version` as of this request: the key of the definitions cache. */
  metadataVersion: number;
  /** The workspace's setting: an update, upsert or delete without a precondition is 428 (docs/api.md §7). */
  requirePreconditions: boolean;
  scopes: ReadonlySet<Scope>;
}

export type AuthenticatedRequest = Request & { auth: AuthContext };

/** False on public and operator routes, and before the authentication guard has run. */
export function isAuthenticated(request: Request): request is AuthenticatedRequest {
  return (request as Partial<AuthenticatedRequest>).auth !== undefined;
}

/** Handler parameter: the caller's AuthContext. */
export const Caller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthContext =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().auth,
);
