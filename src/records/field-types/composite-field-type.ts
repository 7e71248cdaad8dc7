import { ApiError } from '../../common/errors/api-error';
import type { FieldType, OpenApiSchema } from './field-type';
import type { ValueType } from '../value-types';
import { assertOperator } from './scalar-field-type';
import { containsJson, member, prefixPredicate } from './sql';
import { expectNumber, expectString, filterText, isPlainObject, MAX_TEXT_LENGTH } from './values';

interface MemberBase<T> {
  name: string;
  /** Further checks and normalisation after the type and length checks (throws 422). */
  refine?(value: T, param: string): T;
  schema?: OpenApiSchema;
}
/** String members are checked for length and searched by the filters. */
export interface StringMember extends MemberBase<string> {
  kind: 'string';
  /** The stored form an `equal` filter value takes for this member, or undefined to skip it. */
  filterValue?(raw: string): string | undefined;
}
export interface NumberMember extends MemberBase<number> {
  kind: 'number';
}
export type MemberSpec = StringMember | NumberMember;

export const stringMember = (name: string): StringMember => ({
  name,
  kind: 'string',
  schema: { maxLength: MAX_TEXT_LENGTH },
});

/** The closed object of `members`, each optional; `nullable` where null is accepted as absent. */
function objectSchema(members: readonly MemberSpec[], nullable: boolean): OpenApiSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      members.map((spec) => [spec.name, { type: spec.kind, ...(nullable && { nullable: true }), ...spec.schema }]),
    ),
    additionalProperties: false,
  };
}

/**
 * An object value type with a fixed set of optional members (ADDRESS, FULL_NAME). Unknown member →
 * 400 unknown_field (`fields.x.zip`), wrong member type → 400 invalid_type, a `null` member is
 * dropped (as if absent). Stored with members in declaration order. `multipleValues` does not apply.
 * Filters: `equal` and `startsWith`, matching when any string member matches.
 */
export function compositeFieldType(
  valueType: ValueType,
  members: readonly MemberSpec[],
  example: Record<string, unknown>,
): FieldType {
  const writeSchema: OpenApiSchema = { ...objectSchema(members, true), example };
  const strings = members.filter((spec): spec is StringMember => spec.kind === 'string');
  const type: FieldType = {
    valueType,
    operators: ['equal', 'startsWith'],
    defaultOperator: 'equal',
    write(value, _field, param) {
      if (!isPlainObject(value)) throw ApiError.invalidType(param, 'an object');
      for (const name of Object.keys(value)) {
        if (!members.some((spec) => spec.name === name)) throw ApiError.unknownField(`${param}.${name}`);
      }
      const stored: Record<string, unknown> = {};
      for (const spec of members) {
        const item = value[spec.name];
        if (item === undefined || item === null) continue;
        const itemParam = `${param}.${spec.name}`;
        if (spec.kind === 'string') {
          const text = expectString(item, itemParam);
          stored[spec.name] = spec.refine ? spec.refine(text, itemParam) : text;
        } else {
          const number = expectNumber(item, itemParam);
          stored[spec.name] = spec.refine ? spec.refine(number, itemParam) : number;
        }
      }
      return stored;
    },
    read: (stored) => stored,
    // Stored without the members written null or absent, so none reads null.
    readValue: { ...objectSchema(members, false), example },
    filterSql(fieldsColumn, field, operator, raw, params, param) {
      assertOperator(type, field, operator, param);
      filterText(raw, param);
      const value = member(fieldsColumn, field.key); // asserts the key is safe
      if (operator === 'startsWith') {
        const predicate = prefixPredicate(raw, params);
        return `(${strings.map((spec) => predicate(member(value.json, spec.name))).join(' OR ')})`;
      }
      const alternatives = strings.flatMap((spec) => {
        const expected = spec.filterValue ? spec.filterValue(raw) : raw;
        return expected === undefined
          ? []
          : [containsJson(fieldsColumn, { [field.key]: { [spec.name]: expected } }, params)];
      });
      return `(${alternatives.join(' OR ')})`;
    },
    openApi: () => writeSchema,
    objectValue: writeSchema,
  };
  return type;
}
