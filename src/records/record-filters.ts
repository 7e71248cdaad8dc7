import { ApiError } from '../common/errors/api-error';
import { fieldTypeOf } from './field-types/registry';
import { FILTER_OPERATORS, FilterOperator, SqlParameters } from './field-types/field-type';
import type { ObjectTypeDefinition } from './object-type';

const FILTER_KEY = /^([^[\]]+)(?:\[(-?)([A-Za-z]*)\])?$/;

export class SqlParameterList implements SqlParameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function invalidFilter(param: string, message: string): ApiError {
  return new ApiError(400, 'invalid_filter', message, param);
}

/**
 * `?key[operator]=value` filters of decisions §8 as SQL conditions on `records r`, ANDed. A `-`
 * before the operator negates it and then also matches unset values.
 */
export function filterConditions(
  type: ObjectTypeDefinition,
  filters: Record<string, string | string[]>,
  params: SqlParameters,
): string[] {
  const conditions: string[] = [];
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
    } else {
      if ((requested ?? 'equal') !== 'equal') throw invalidFilter(name, `${key} is a relationship: only equal applies`);
      const { link, side } = relationship!.binding;
      const [self, other] = side === 'source' ? ['source_id', 'target_id'] : ['target_id', 'source_id'];
      condition = `EXISTS (SELECT 1 FROM record_links l WHERE l.${self} = r.id AND l.link = ${params.add(link)} AND l.${other} = ${params.add(raw)})`;
    }
    conditions.push(negated ? `(${condition}) IS NOT TRUE` : `(${condition})`);
  }
  return conditions;
}
