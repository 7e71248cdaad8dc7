import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthContext, isAuthenticated } from '../auth/auth-context';
import { ApiError } from '../errors/api-error';

/**
 * Conditional requests on single records (docs/api.md §7, "Conditional requests", RFC 9110 §8.8 and §13): a record's
 * strong ETag is `"v<version>"`, its version counting its changes; a write compares the versions
 * `If-Match` and `If-None-Match` name with the record's under its row lock, and a read answers 304
 * to an `If-None-Match` that names the representation it would send.
 */

/**
 * What a route of one record does with preconditions: a `read` answers 304 to an If-None-Match
 * naming its answer, an `update` and a `delete` take If-Match, an `upsert` both, a `create` neither.
 * All but a delete answer the record's ETag.
 */
export type ConditionalRoute = 'read' | 'create' | 'update' | 'upsert' | 'delete';

/** What a write requires of its record: its request's `If-Match` and `If-None-Match`, as versions. */
export interface WriteCondition {
  /** `*`: a record must exist; else it must be at one of these versions. */
  ifMatch?: '*' | number[];
  /** `*`: no record may exist (create only); else it must be at none of these versions. */
  ifNoneMatch?: '*' | number[];
}

/** An entity tag as sent: `W/"…"` is weak; the opaque part is what is between the quotes. */
interface SentTag {
  weak: boolean;
  opaque: string;
}

/** The largest version a tag can name: `records.version` is a PostgreSQL integer. */
const MAX_VERSION = 2 ** 31 - 1;

/** One element of an entity-tag list, with the list's separators around it (RFC 9110 §5.6.1, §8.8.3). */
const LISTED_TAG = /[\t ,]*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"[\t ]*(?:,|$)/y;

/** The representation's tag of a record at `version`; `qualifier` tells apart views of one version (a redacted meeting). */
export function entityTagOf(version: number, qualifier?: string): string {
  return qualifier === undefined ? `"v${version}"` : `"v${version}-${qualifier}"`;
}

/** `*`, or the tags of an If-Match or If-None-Match value (of the header or member `param`); 400 when it is neither. */
function readTags(param: string, value: string): '*' | SentTag[] {
  if (value.trim() === '*') return '*';
  const tags: SentTag[] = [];
  let at = 0;
  while (!/^[\t ,]*$/.test(value.slice(at))) {
    LISTED_TAG.lastIndex = at;
    const found = LISTED_TAG.exec(value);
    if (!found) {
      throw ApiError.invalidParameter(param, `${param} must be * or a list of quoted entity tags, e.g. "v3"`);
    }
    tags.push({ weak: found[1] !== undefined, opaque: found[2] });
    at = LISTED_TAG.lastIndex;
  }
  if (tags.length === 0) throw ApiError.invalidParameter(param, `${param} must not be empty`);
  return tags;
}

/** The versions the tags name, of the tags of this service's form; weak ones only when `weakToo`. */
function versionsOf(tags: SentTag[], weakToo: boolean): number[] {
  return tags.flatMap(({ weak, opaque }) => {
    const version = /^v([1-9][0-9]{0,9})$/.exec(opaque);
    if (!version || (weak && !weakToo)) return [];
    const number = Number(version[1]);
    return number <= MAX_VERSION ? [number] : [];
  });
}

/** What an If-Match value (of the header or member `param`) asks: strong comparison, so a weak tag never matches. */
export function ifMatchOf(value: string, param = 'If-Match'): '*' | number[] {
  const tags = readTags(param, value);
  return tags === '*' ? '*' : versionsOf(tags, false);
}

/** What an If-None-Match value (of the header or member `param`) asks: weak comparison. */
export function ifNoneMatchOf(value: string, param = 'If-None-Match'): '*' | number[] {
  const tags = readTags(param, value);
  return tags === '*' ? '*' : versionsOf(tags, true);
}

function headerOf(request: Request, name: 'if-match' | 'if-none-match'): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * A write's condition from its headers: If-Match compares strongly (a weak tag never matches),
 * If-None-Match weakly (RFC 9110 §13.1.1, §13.1.2). Undefined when it sends neither.
 */
function writeConditionOf(request: Request): WriteCondition | undefined {
  const ifMatch = headerOf(request, 'if-match');
  const ifNoneMatch = headerOf(request, 'if-none-match');
  if (ifMatch === undefined && ifNoneMatch === undefined) return undefined;
  const condition: WriteCondition = {};
  if (ifMatch !== undefined) condition.ifMatch = ifMatchOf(ifMatch);
  if (ifNoneMatch !== undefined) condition.ifNoneMatch = ifNoneMatchOf(ifNoneMatch);
  return condition;
}

/** The 412 of a write whose record is not as its condition requires: its current ETag, when there is a record. */
export function preconditionFailed(version: number | undefined): ApiError {
  if (version === undefined) {
    return new ApiError(412, 'precondition_failed', 'There is no such record, and If-Match requires one');
  }
  const tag = entityTagOf(version);
  return new ApiError(
    412,
    'precondition_failed',
    `The record is at ${tag}, which the precondition refuses`,
    undefined,
    {
      ETag: tag,
    },
  );
}

/**
 * The 428 of a write (an update, upsert or delete) without a precondition in a workspace that
 * requires one (`requirePreconditions`); a batch input's names its member (`param`, e.g. `inputs[2].ifMatch`
 * once its index is prefixed). An upsert's If-None-Match (create only) is one too.
 */
export function missingPrecondition(
  caller: AuthContext,
  condition: WriteCondition | undefined,
  route: 'update' | 'upsert' | 'delete',
  param?: 'ifMatch',
): ApiError | undefined {
  if (!caller.requirePreconditions || condition?.ifMatch !== undefined) return undefined;
  if (route === 'upsert' && condition?.ifNoneMatch !== undefined) return undefined;
  const [ifMatch, ifNoneMatch] =
    param === undefined ? ['If-Match', 'If-None-Match: *'] : ['ifMatch', 'ifNoneMatch "*"'];
  const wanted =
    route === 'upsert'
      ? `${ifMatch} (the ETag of the record as read) or ${ifNoneMatch} (create only)`
      : `${ifMatch}: the ETag of the record as read`;
  return new ApiError(
    428,
    'precondition_required',
    `This workspace requires a precondition of every ${route}: send ${wanted}`,
    param,
  );
}

/** The failure of `condition` for a record at `version` (undefined: there is none, the write creates it). */
export function conditionFailure(
  condition: WriteCondition | undefined,
  version: number | undefined,
): ApiError | undefined {
  if (!condition) return undefined;
  const { ifMatch, ifNoneMatch } = condition;
  const matches = (versions: '*' | number[]) =>
    version !== undefined && (versions === '*' || versions.includes(version));
  if (ifMatch !== undefined && !matches(ifMatch)) return preconditionFailed(version);
  if (ifNoneMatch !== undefined && matches(ifNoneMatch)) return preconditionFailed(version);
  return undefined;
}

/** An answer that is one record (`version`, and for meetings `accessLevel`), or an upsert's `{ outcome, data }`. */
interface VersionedEntity {
  version: number;
  accessLevel?: string;
}

function isVersioned(value: unknown): value is VersionedEntity {
  return typeof value === 'object' && value !== null && typeof (value as { version?: unknown }).version === 'number';
}

function versionedEntityOf(body: unknown): VersionedEntity | undefined {
  if (isVersioned(body)) return body;
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  return isVersioned(data) ? data : undefined;
}

/** Whether a read's If-None-Match (`*` or its tags) names `tag`: weak comparison (RFC 9110 §8.8.3.2). */
function noneMatchNames(noneMatch: '*' | SentTag[], tag: string): boolean {
  return noneMatch === '*' || noneMatch.some(({ opaque }) => `"${opaque}"` === tag);
}

/** Route metadata (set by `@Endpoint({ conditional })`): the route's ConditionalRoute. */
export const CONDITIONAL_ROUTE = 'conditionalRoute';

/** What PreconditionsGuard read of a conditional route's request, for its answer. */
interface ConditionalRequest {
  route: ConditionalRoute;
  /** A read's If-None-Match. */
  noneMatch?: '*' | SentTag[];
  /** A write's If-Match and If-None-Match. */
  condition?: WriteCondition;
}

const conditionalRequests = new WeakMap<IncomingMessage, ConditionalRequest>();

/**
 * Reads a conditional route's request before its handler runs (PreconditionsGuard), a malformed
 * header refused before the record is read: a read's If-None-Match, a write's condition (for
 * `@Preconditions()`), 428 for a write without one in a workspace that requires one. What its
 * answer needs is kept for `withEntityTag`.
 */
export function admitConditional(request: Request, route: ConditionalRoute): void {
  if (route === 'update' || route === 'upsert' || route === 'delete') {
    const condition = writeConditionOf(request);
    const missing = isAuthenticated(request) ? missingPrecondition(request.auth, condition, route) : undefined;
    if (missing) throw missing;
    conditionalRequests.set(request, { route, condition });
    return;
  }
  const sent = route === 'read' ? headerOf(request, 'if-none-match') : undefined;
  conditionalRequests.set(request, {
    route,
    noneMatch: sent === undefined ? undefined : readTags('If-None-Match', sent),
  });
}

/** Handler parameter of a conditional write: its WriteCondition as PreconditionsGuard read it (undefined without one). */
export const Preconditions = createParamDecorator(
  (_data: unknown, context: ExecutionContext): WriteCondition | undefined =>
    conditionalRequests.get(context.switchToHttp().getRequest<Request>())?.condition,
);

/** The answer of a read whose If-None-Match named its representation: 304, its ETag, no body. */
export const NOT_MODIFIED = Symbol('not modified');

/**
 * A conditional route's answer (a replayed one too): the ETag of the record it carries set, or
 * NOT_MODIFIED for a read whose If-None-Match names it. A redacted meeting (METADATA access) is
 * another representation of the same version, so its tag is another. A delete answers none.
 */
export function withEntityTag(response: ServerResponse, body: unknown): unknown {
  const conditional = conditionalRequests.get(response.req);
  if (!conditional || conditional.route === 'delete') return body;
  const entity = versionedEntityOf(body);
  if (!entity) return body;
  const tag = entityTagOf(entity.version, entity.accessLevel === 'METADATA' ? 'metadata' : undefined);
  response.setHeader('ETag', tag);
  const { noneMatch } = conditional;
  return noneMatch !== undefined && noneMatchNames(noneMatch, tag) ? NOT_MODIFIED : body;
}
