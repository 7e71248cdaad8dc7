import { Injectable } from '@nestjs/common';
import { isIdOf, newId } from '../ids';
import { generateApiKeySecret, hashSecret } from './api-key-secret';
import { ApiKeyHolder, ApiKeysRepository } from './api-keys.repository';
import type { AuthContext } from './auth-context';
import { expandScopes, type Scope } from './scopes';

/** A key as it is issued: its secret is answered this once and never stored. */
export interface IssuedApiKey {
  id: string;
  secret: string;
  memberId: string;
  scopes: string[];
  createdAt: Date;
}

/** The scopes a grant expands to, by the grant as stored: few distinct grants, read on every request. */
const expandedGrants = new Map<string, ReadonlySet<Scope>>();
const MAX_EXPANDED_GRANTS = 1000;

function expandedScopes(granted: string[]): ReadonlySet<Scope> {
  const key = granted.join(' ');
  let scopes = expandedGrants.get(key);
  if (scopes === undefined) {
    scopes = new Set(expandScopes(granted));
    if (expandedGrants.size < MAX_EXPANDED_GRANTS) expandedGrants.set(key, scopes);
  }
  return scopes;
}

function authContextOf({ scopes, ...holder }: ApiKeyHolder): AuthContext {
  return { ...holder, scopes: expandedScopes(scopes) };
}

/**
 * The API keys: who calls with a key, and the operator's issuing and revoking of keys. Keys are
 * found by their SHA-256; the secret itself is never stored.
 */
@Injectable()
export class ApiKeysService {
  constructor(private readonly keys: ApiKeysRepository) {}

  /** Who calls with `secret`, unless it is no active key. Runs on every `/v1` request, before any transaction exists. */
  async authenticate(secret: string): Promise<AuthContext | undefined> {
    const holder = await this.keys.findActiveByHash(hashSecret(secret));
    return holder && authContextOf(holder);
  }

  /** Who a request with the active key `id` would be (a webhook endpoint's reader); undefined once it is revoked. */
  async contextOfActiveKey(id: string): Promise<AuthContext | undefined> {
    const holder = await this.keys.findActiveById(id);
    return holder && authContextOf(holder);
  }

  /** The contexts of the active keys among `ids`, by key id (a revoked key is missing). */
  async contextsOfActiveKeys(ids: string[]): Promise<Map<string, AuthContext>> {
    const holders = await this.keys.findActiveByIds(ids);
    return new Map(holders.map((holder) => [holder.apiKeyId, authContextOf(holder)]));
  }

  /** Whether `secret` is the key `id` and it is not revoked. */
  isActive(id: string, secret: string): Promise<boolean> {
    return this.keys.isActive(id, hashSecret(secret));
  }

  /** A new key of the member (of the workspace: the caller checks that it is one), with each scope once. */
  async issue(key: { workspaceId: string; memberId: string; name?: string; scopes: string[] }): Promise<IssuedApiKey> {
    const secret = generateApiKeySecret();
    const issued = {
      id: newId('apiKey'),
      secret,
      memberId: key.memberId,
      scopes: [...new Set(key.scopes)],
      createdAt: new Date(),
    };
    await this.keys.insert({
      id: issued.id,
      workspaceId: key.workspaceId,
      memberId: issued.memberId,
      name: key.name ?? null,
      keyHash: hashSecret(secret),
      scopes: issued.scopes,
      createdAt: issued.createdAt,
      revokedAt: null,
    });
    return issued;
  }

  /** The revocation time; a key revoked before keeps its first one. Undefined: no such key. Takes effect at once: every request looks its key up. */
  async revoke(id: string): Promise<Date | undefined> {
    return isIdOf('apiKey', id) ? this.keys.revoke(id) : undefined;
  }
}
