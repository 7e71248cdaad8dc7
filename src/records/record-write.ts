import { ApiError } from '../common/errors/api-error';
import { fieldTypeOf } from './field-types/registry';
import { storable } from './field-types/values';
import type { ObjectTypeDefinition, RelationshipDefinition, RelationshipOperation } from './object-type';

export const MAX_RELATIONSHIP_IDS_PER_REQUEST = 25;
const MAX_EXTERNAL_ID_LENGTH = 255;
const BODY_MEMBERS = new Set(['fields', 'relationships', 'externalId']);

/** What a create or update asks of one relationship, ids not yet checked to exist. */
export interface LinkChange {
  definition: RelationshipDefinition;
  /** Replaces the whole relationship (create, or `replace`). */
  set?: string[];
  add: string[];
  remove: string[];
}

/** A validated record write: normalised field values (`null` clears) and relationship changes. */
export interface RecordWrite {
  fields: Record<string, unknown>;
  links: LinkChange[];
  /** `undefined`: not given; `null`: clear. */
  externalId?: string | null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** At most 25 ids in one request, counted over all its relationships (decisions §7). */
export function checkRelationshipWriteLimit(total: number): void {
  if (total > MAX_RELATIONSHIP_IDS_PER_REQUEST) {
    throw new ApiError(
      422,
      'relationship_write_limit_exceeded',
      `At most ${MAX_RELATIONSHIP_IDS_PER_REQUEST} ids may be written in one request; got ${total}`,
      'relationships',
    );
  }
}

/** An id or an array of ids, as relationship writes take them. */
export function idList(value: unknown, param: string): string[] {
  const ids = Array.isArray(value) ? value : [value];
  if (ids.length === 0 && Array.isArray(value)) return [];
  for (const id of ids) {
    if (typeof id !== 'string') throw ApiError.invalidType(param, 'an id or an array of ids');
  }
  return ids as string[];
}

function readFields(type: ObjectTypeDefinition, raw: unknown, isCreate: boolean): Record<string, unknown> {
  if (raw === undefined) {
    if (isCreate) throw ApiError.missing('fields');
    return {};
  }
  if (!isPlainObject(raw)) throw ApiError.invalidType('fields', 'an object');
  const byKey = new Map(type.fields.map((field) => [field.key, field]));
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const param = `fields.${key}`;
    const field = byKey.get(key);
    if (!field) throw ApiError.unknownField(param);
    if (field.readOnly) throw new ApiError(422, 'read_only_field', `${param} is read-only`, param);
    if (value === null || value === undefined) {
      if (field.required) throw ApiError.missing(param);
      values[key] = null;
    } else {
      values[key] = fieldTypeOf(field.valueType).write(value, field, param);
    }
  }
  if (isCreate) {
    for (const field of type.fields) {
      if (field.required && (values[field.key] === undefined || values[field.key] === null)) {
        throw ApiError.missing(`fields.${field.key}`);
      }
    }
  }
  return values;
}

function readOnlyError(param: string): ApiError {
  return new ApiError(422, 'read_only_field', `${param} is read-only`, param);
}

function readLinkChange(
  type: ObjectTypeDefinition,
  definition: RelationshipDefinition,
  value: unknown,
  isCreate: boolean,
): LinkChange {
  const param = `relationships.${definition.key}`;
  if (definition.readOnly || (!isCreate && definition.createOnly)) throw readOnlyError(param);
  if (isCreate) return { definition, set: idList(value, param), add: [], remove: [] };
  if (!isPlainObject(value)) throw ApiError.invalidType(param, 'an object with add, remove or replace');
  const allowed: readonly RelationshipOperation[] = type.updateOperations ?? ['add', 'remove', 'replace'];
  for (const operation of Object.keys(value)) {
    if (!allowed.includes(operation as RelationshipOperation)) {
      throw new ApiError(400, 'invalid_operation', `${param} allows only ${allowed.join(', ')}`, `${param}.${operation}`);
    }
  }
  if ('replace' in value && ('add' in value || 'remove' in value)) {
    throw new ApiError(400, 'invalid_operation', `${param}.replace cannot be combined with add or remove`, param);
  }
  const change: LinkChange = { definition, add: [], remove: [] };
  if ('replace' in value) change.set = idList(value.replace, `${param}.replace`);
  if ('add' in value) change.add = idList(value.add, `${param}.add`);
  if ('remove' in value) change.remove = idList(value.remove, `${param}.remove`);
  return change;
}

function readLinks(type: ObjectTypeDefinition, raw: unknown, isCreate: boolean): LinkChange[] {
  if (raw !== undefined && !isPlainObject(raw)) throw ApiError.invalidType('relationships', 'an object');
  const given = raw ?? {};
  const byKey = new Map(type.relationships.map((relationship) => [relationship.key, relationship]));
  const changes: LinkChange[] = [];
  for (const [key, value] of Object.entries(given)) {
    const param = `relationships.${key}`;
    const definition = byKey.get(key);
    if (!definition) {
      throw new ApiError(400, 'unknown_relationship', `${param} is not a known relationship`, param);
    }
    if (value === null || value === undefined) {
      // A required relationship given as null is missing (decisions §2), not mistyped.
      if (isCreate && definition.required) throw ApiError.missing(param);
      throw ApiError.invalidType(param, 'an id or an array of ids');
    }
    changes.push(readLinkChange(type, definition, value, isCreate));
  }
  checkRelationshipWriteLimit(changes.reduce((sum, c) => sum + (c.set?.length ?? 0) + c.add.length + c.remove.length, 0));
  if (isCreate) {
    for (const definition of type.relationships) {
      const change = changes.find((c) => c.definition === definition);
      if (definition.required && !change?.set?.length) throw ApiError.missing(`relationships.${definition.key}`);
    }
  }
  return changes;
}

function readExternalId(raw: unknown): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  if (typeof raw !== 'string') throw ApiError.invalidType('externalId', 'a string');
  if (raw.length === 0 || raw.length > MAX_EXTERNAL_ID_LENGTH || !storable(raw)) {
    throw ApiError.invalidValue('externalId', `externalId must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters, without NUL`);
  }
  return raw;
}

/**
 * Validates a create or update body of any record type against its definitions (decisions §2, §7):
 * every field through the registry, relationship operations per the type, at most 25 ids.
 */
export function readRecordWrite(type: ObjectTypeDefinition, body: unknown, isCreate: boolean): RecordWrite {
  const given = body ?? {};
  if (!isPlainObject(given)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  for (const key of Object.keys(given)) {
    if (!BODY_MEMBERS.has(key)) throw ApiError.unknownField(key);
  }
  return {
    fields: readFields(type, given.fields, isCreate),
    links: readLinks(type, given.relationships, isCreate),
    externalId: readExternalId(given.externalId),
  };
}
