import { ApiError } from '../common/errors/api-error';
import { namedErrorCodes } from '../common/errors/error-responses';
import { fieldTypeOf } from './field-types/registry';
import { storable } from '../common/validation/storable-text';
import { isPlainObject } from './field-types/values';
import { RELATIONSHIP_OPERATIONS } from './object-type';
import type { ObjectTypeDefinition, RelationshipDefinition, RelationshipOperation } from './object-type';

export { isPlainObject };

export const MAX_RELATIONSHIP_IDS_PER_REQUEST = 25;

/** What refuses a record write's body besides any body's validation: readRecordWrite, the link targets, the id limit. */
export const RECORD_WRITE_ERRORS = namedErrorCodes('RecordWrite', [
  'unknown_relationship',
  'invalid_operation',
  'read_only_field',
  'relationship_entity_missing',
  'relationship_write_limit_exceeded',
]);
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

/**
 * A validated record write: normalised field values by key (`null` clears) and relationship
 * changes. Keys are the caller's (`constructor` is a valid custom key): a Map, never a plain object.
 */
export interface RecordWrite {
  fields: Map<string, unknown>;
  links: LinkChange[];
  /** `undefined`: not given; `null`: clear. */
  externalId?: string | null;
}

/** At most 25 ids in one request, counted over all its relationships (docs/api.md §7). */
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

function readFields(type: ObjectTypeDefinition, raw: unknown, isCreate: boolean): Map<string, unknown> {
  const values = new Map<string, unknown>();
  // `"fields": null` is absent (docs/api.md §2: a required member absent or null is missing).
  if (raw === undefined || raw === null) {
    if (isCreate) throw ApiError.missing('fields');
    return values;
  }
  if (!isPlainObject(raw)) throw ApiError.invalidType('fields', 'an object');
  const byKey = new Map(type.fields.map((field) => [field.key, field]));
  for (const [key, value] of Object.entries(raw)) {
    const param = `fields.${key}`;
    const field = byKey.get(key);
    if (!field) throw ApiError.unknownField(param);
    if (field.readOnly) throw readOnlyError(param);
    if (value === null) {
      if (field.required) throw ApiError.missing(param);
      values.set(key, null);
    } else {
      values.set(key, fieldTypeOf(field.valueType).write(value, field, param));
    }
  }
  if (isCreate) {
    for (const field of type.fields) {
      if (field.required && (values.get(field.key) ?? null) === null) throw ApiError.missing(`fields.${field.key}`);
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
  linksAsIds: boolean,
): LinkChange {
  const param = `relationships.${definition.key}`;
  if (definition.readOnly || (!isCreate && definition.createOnly)) throw readOnlyError(param);
  if (linksAsIds) return { definition, set: idList(value, param), add: [], remove: [] };
  const allowed: readonly RelationshipOperation[] = type.updateOperations ?? RELATIONSHIP_OPERATIONS;
  if (!isPlainObject(value))
    throw ApiError.invalidType(param, `an object with ${allowed.join(', ').replace(/, (\w+)$/, ' or $1')}`);
  for (const operation of Object.keys(value)) {
    if (!allowed.includes(operation as RelationshipOperation)) {
      throw new ApiError(
        400,
        'invalid_operation',
        `${param} allows only ${allowed.join(', ')}`,
        `${param}.${operation}`,
      );
    }
  }
  const given = (operation: RelationshipOperation) => Object.hasOwn(value, operation);
  if (given('replace') && (given('add') || given('remove'))) {
    throw new ApiError(400, 'invalid_operation', `${param}.replace cannot be combined with add or remove`, param);
  }
  const change: LinkChange = { definition, add: [], remove: [] };
  if (given('replace')) change.set = idList(value.replace, `${param}.replace`);
  if (given('add')) change.add = idList(value.add, `${param}.add`);
  if (given('remove')) change.remove = idList(value.remove, `${param}.remove`);
  return change;
}

function readLinks(type: ObjectTypeDefinition, raw: unknown, isCreate: boolean, linksAsIds: boolean): LinkChange[] {
  // `"relationships": null` is absent: on create, a required relationship is then missing.
  const given = raw ?? {};
  if (!isPlainObject(given)) throw ApiError.invalidType('relationships', 'an object');
  const byKey = new Map(type.relationships.map((relationship) => [relationship.key, relationship]));
  const changes: LinkChange[] = [];
  for (const [key, value] of Object.entries(given)) {
    const param = `relationships.${key}`;
    const definition = byKey.get(key);
    if (!definition) {
      throw new ApiError(400, 'unknown_relationship', `${param} is not a known relationship`, param);
    }
    if (value === null) {
      // null is absent (docs/api.md §2): for a required relationship that makes it missing, on
      // create as on update (an update may not empty it); an optional one is left as it is.
      if (definition.required) throw ApiError.missing(param);
      continue;
    }
    changes.push(readLinkChange(type, definition, value, isCreate, linksAsIds));
  }
  checkRelationshipWriteLimit(
    changes.reduce((sum, c) => sum + (c.set?.length ?? 0) + c.add.length + c.remove.length, 0),
  );
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
    throw ApiError.invalidValue(
      'externalId',
      `externalId must be 1 to ${MAX_EXTERNAL_ID_LENGTH} characters, without NUL`,
    );
  }
  return raw;
}

/**
 * Validates a create or update body of any record type against its definitions (docs/api.md §2, §7):
 * every field through the registry, relationship operations per the type, at most 25 ids.
 * `linksAsIds`: relationships are given as a create gives them (ids), each replacing the
 * relationship, also on an update (an upsert that found its record).
 */
export function readRecordWrite(
  type: ObjectTypeDefinition,
  body: unknown,
  isCreate: boolean,
  linksAsIds = isCreate,
): RecordWrite {
  const given = body ?? {};
  if (!isPlainObject(given)) throw new ApiError(400, 'invalid_json', 'The body must be a JSON object');
  for (const key of Object.keys(given)) {
    if (!BODY_MEMBERS.has(key)) throw ApiError.unknownField(key);
  }
  return {
    fields: readFields(type, given.fields, isCreate),
    links: readLinks(type, given.relationships, isCreate, linksAsIds),
    externalId: readExternalId(given.externalId),
  };
}

/**
 * Why a relationship may not hold `linkCount` links, if it may not: a HAS_ONE holds one at most,
 * and a required one (task `$assignedTo`, opportunity `$account`) cannot be emptied.
 */
export function linkCountError(definition: RelationshipDefinition, linkCount: number): ApiError | undefined {
  const param = `relationships.${definition.key}`;
  if (definition.cardinality === 'HAS_ONE' && linkCount > 1)
    return ApiError.invalidValue(param, `${param} holds at most one id`);
  if (definition.required && linkCount === 0) return ApiError.missing(param);
  return undefined;
}

/** The probes of a `unique` field's value: each element of a multi-valued one, else the value (see RecordWriteChecks.uniqueValues). */
export function probesOf(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]).map((element) => [element]) : [value];
}
