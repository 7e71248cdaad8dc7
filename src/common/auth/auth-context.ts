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
  scopes: ReadonlySet<Scope>;
}

export type AuthenticatedRequest = Request & { auth: AuthContext };

/** Handler parameter: the caller's AuthContext. */
export const Caller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthContext =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().auth,
);
