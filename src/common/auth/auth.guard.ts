import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import type { MemberRole } from '../../database/entities/member.entity';
import { ApiError } from '../errors/api-error';
import { looksLikeApiKey, hashSecret, secretsEqual } from './api-key-secret';
import { AuthContext, AuthenticatedRequest } from './auth-context';
import { AUTH_MODE, AuthMode } from './auth.decorators';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { expandScopes } from './scopes';

function bearerToken(request: Request): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  return match?.[1];
}

/**
 * First of the global guards: routes are closed unless marked `@Public()`. `/v1` routes take an
 * API key (looked up by its SHA-256, so a revoked key fails at once); operator routes take the
 * ADMIN_TOKEN. Every failure is counted per client address.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const mode =
      this.reflector.getAllAndOverride<AuthMode>(AUTH_MODE, [context.getHandler(), context.getClass()]) ?? 'apiKey';
    if (mode === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerToken(request);
    if (mode === 'admin') {
      if (!this.config.adminToken) throw ApiError.notFound('Route');
      if (token !== undefined && secretsEqual(token, this.config.adminToken)) return true;
      throw await this.failures.fail(request, new ApiError(401, 'invalid_api_key', 'Invalid or missing admin token'));
    }
    const auth = token !== undefined && looksLikeApiKey(token) ? await this.lookUp(token) : undefined;
    if (!auth) {
      throw await this.failures.fail(
        request,
        new ApiError(401, 'invalid_api_key', 'Missing, unknown or revoked API key; send Authorization: Bearer <key>'),
      );
    }
    request.auth = auth;
    return true;
  }

  private async lookUp(secret: string): Promise<AuthContext | undefined> {
    const rows: {
      id: string;
      workspace_id: string;
      member_id: string;
      scopes: string[];
      role: MemberRole;
      email: string;
      metadata_version: number;
    }[] = (
      await (this.dataSource.driver as unknown as { master: Pool }).master.query({
        // Named: every connection parses and plans the lookup that runs on every request once.
        name: 'auth-key-lookup',
        text: `SELECT k.id, k.workspace_id, k.member_id, k.scopes, m.role, m.email, w.metadata_version
                 FROM api_keys k JOIN members m ON m.id = k.member_id JOIN workspaces w ON w.id = k.workspace_id
                WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
        values: [hashSecret(secret)],
      })
    ).rows;
    const row = rows[0];
    if (!row) return undefined;
    return {
      apiKeyId: row.id,
      workspaceId: row.workspace_id,
      memberId: row.member_id,
      memberRole: row.role,
      memberEmail: row.email,
      metadataVersion: row.metadata_version,
      scopes: new Set(expandScopes(row.scopes)),
    };
  }
}
