import { ApiError } from '../common/errors/api-error';
import { fieldTypeOf } from './field-types/registry';
import { FILTER_OPERATORS, FilterOperator, SqlParameters } from './field-types/field-type';
import { optionIdOf } from './field-types/options';
import { COMPARISONS, escapeLike } from './field-types/sql';
import { filterText, parseNumberLiteral } from './field-types/values';
import type { FieldDefinition, LinkBinding, ObjectTypeDefinition } from './object-type';
import { linkedToSql } from './record-links.repository';
import type { ValueType } from './value-types';

const FILTER_KEY = /^([^[\]]+)(?:\[(-?)([A-Za-z]*)\])?$/;

/** Indexed string values are the first 512 characters (see the record_values migration). */
const INDEXED_TEXT_LENGTH = 512;

type ValueProbe = (
  field: FieldDefinition,
  operator: FilterOperator,
  raw: string,
  params: SqlParameters,
  param: string,
) => string | undefined;

/**
 * The least string above every string that starts with `prefix` in the index's order
 * (text_pattern_ops: UTF-8 bytes, so code points): the prefix with its last code point raised by
 * one, or dropped when it is the last there is. Undefined when nothing is above them all.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = [...prefix].map((character) => character.codePointAt(0)!);
  while (points.length > 0) {
    const next = points.pop()! + 1;
    if (next <= 0x10ffff) return String.fromCodePoint(...points, next >= 0xd800 && next <= 0xdfff ? 0xe000 : next);
  }
  return undefined;
}

/**
 * A prefix as a range of the index as well as the LIKE that decides: a prepared statement's
 * generic plan cannot turn `LIKE $n` into index bounds, and would read every value of the field.
 */
const prefixProbe: ValueProbe = (_field, operator, raw, params) => {
  if (operator !== 'startsWith' || [...raw].length > INDEXED_TEXT_LENGTH) return undefined;
  const upper = prefixUpperBound(raw);
  const range = `v.text_value ~>=~ ${params.add(raw)}${upper === undefined ? '' : ` AND v.text_value ~<~ ${params.add(upper)}`}`;
  return `${range} AND v.text_value LIKE ${params.add(`${escapeLike(raw)}%`)}`;
};

/** Equality of a string shorter than the indexed length: a longer stored value cannot be equal. */
const textEqualProbe: ValueProbe = (field, operator, raw, params) => {
  if (operator !== 'equal') return undefined;
  // The value the type's own condition compares: an option id for selects (the filter SQL has
  // already refused unknown options), the raw text for TEXT.
  const value = field.valueType === 'SINGLE_SELECT' ? optionIdOf(field, raw) : raw;
  return value !== undefined && [...value].length < INDEXED_TEXT_LENGTH
    ? `v.text_value = ${params.add(value)}`
    : undefined;
};

/** Number ranges, bound as the number the type's own condition compares with. */
const rangeProbe: ValueProbe = (_field, operator, raw, params) => {
  const value = parseNumberLiteral(raw);
  return operator !== 'equal' && COMPARISONS[operator] && value !== undefined
    ? `v.number_value ${COMPARISONS[operator]} ${params.add(String(value))}::numeric`
    : undefined;
};

/**
 * The filters that the `record_values` index answers exactly: string prefixes up to the indexed
 * length, equality of TEXT and SINGLE_SELECT, number ranges. Each probe matches the same records
 * as the type's own condition (values of the field's JSON type, any element of a multiple value).
 */
const VALUE_PROBES: Partial<Record<ValueType, ValueProbe[]>> = {
  TEXT: [prefixProbe, textEqualProbe],
  SOCIAL_HANDLE: [prefixProbe],
  SINGLE_SELECT: [textEqualProbe],
  NUMBER: [rangeProbe],
  CURRENCY: [rangeProbe],
};

/**
 * A filter the value index answers: `probe` is a condition on `record_values v`; `recheck`, the
 * field type's own condition on `records r`, decides for values longer than the index holds.
 */
export interface IndexedFilter {
  fieldKey: string;
  probe: string;
  recheck: string;
}

export interface FilterSql {
  /** Conditions on `records r`, to AND. */
  conditions: string[];
  /** Set when the filters are exactly one indexed, non-negated filter: lists can page from the index. */
  indexed?: IndexedFilter;
  /** Set when the filters are exactly one non-negated relationship filter: lists can count its links. */
  linked?: LinkedFilter;
}

/** A relationship filter: the records linked through `binding` (its link bound as `linkName`) to `otherId`, bound. */
export interface LinkedFilter {
  binding: LinkBinding;
  linkName: string;
  otherId: string;
}

function invalidFilter(param: string, message: string): ApiError {
  return new ApiError(400, 'invalid_filter', message, param);
}

/**
 * `?key[operator]=value` filters of docs/api.md §8 as SQL conditions on `records r`, ANDed. A `-`
 * before the operator negates it and then also matches unset values.
 */
export function filterSql(
  type: ObjectTypeDefinition,
  filters: Record<string, string | string[]>,
  params: SqlParameters,
  options: { valueIndex: boolean } = { valueIndex: true },
): FilterSql {
  const conditions: string[] = [];
  const indexed: IndexedFilter[] = [];
  const linked: LinkedFilter[] = [];
  for (const [name, raw] of Object.entries(filters)) {
    const match = FILTER_KEY.exec(name);
    const key = match?.[1] ?? name;
    const field = type.fields.find((candidate) => candidate.key === key);
    const relationship = type.relationships.find((candidate) => candidate.key === key);
    if (!match || (!field && !relationship)) {
      throw new ApiError(400, 'unknown_field', `${key} is not a field or relationship of ${type.slug}`, name);
    }
    if (typeof raw !== 'string') throw invalidFilter(name, `${name} may be given once`);
    const negated = match[2] === '-';
    const requested = match[3] || undefined;
    if (requested !== undefined && !(FILTER_OPERATORS as readonly string[]).includes(requested)) {
      throw invalidFilter(name, `Unknown filter operator ${requested}`);
    }
    let condition: string;
    if (field) {
      const fieldType = fieldTypeOf(field.valueType);
      const operator = (requested ?? fieldType.defaultOperator) as FilterOperator | undefined;
      if (!operator || !fieldType.operators.includes(operator)) {
        const allowed = fieldType.operators.length ? fieldType.operators.join(', ') : 'none (not filterable)';
        throw invalidFilter(name, `${key} (${field.valueType}) allows the operators: ${allowed}`);
      }
      condition = fieldType.filterSql('r.fields', field, operator, raw, params, name);
      const probe = options.valueIndex
        ? (VALUE_PROBES[field.valueType] ?? [])
            .map((candidate) => candidate(field, operator, raw, params, name))
            .find(Boolean)
        : undefined;
      if (probe) {
        const fieldKey = params.add(field.key);
        if (!negated) indexed.push({ fieldKey, probe, recheck: condition });
        // The index finds the candidates; the type's own condition stays in as the plain reading.
        condition = `EXISTS (SELECT 1 FROM record_values v WHERE v.record_id = r.id AND v.workspace_id = r.workspace_id
            AND v.object_type = r.object_type AND v.field_key = ${fieldKey} AND ${probe}) AND ${condition}`;
      }
    } else {
      if ((requested ?? 'equal') !== 'equal') throw invalidFilter(name, `${key} is a relationship: only equal applies`);
      const other = params.add(filterText(raw, name));
      const linkName = params.add(relationship!.binding.link);
      condition = linkedToSql(relationship!.binding, 'r.id', linkName, other);
      if (!negated) linked.push({ binding: relationship!.binding, linkName, otherId: other });
    }
    conditions.push(negated ? `(${condition}) IS NOT TRUE` : `(${condition})`);
  }
  const single = conditions.length === 1;
  return { conditions, indexed: single ? indexed[0] : undefined, linked: single ? linked[0] : undefined };
}
