import { ApiError } from '../../common/errors/api-error';
import type { FieldDefinition } from '../object-type';
import type { OpenApiSchema } from './field-type';

/** The option id that `value` names: an option id first, else a (case-sensitive) option label. */
export function optionIdOf(field: FieldDefinition, value: string): string | undefined {
  const options = field.typeConfiguration?.options ?? [];
  return (options.find((option) => option.id === value) ?? options.find((option) => option.label === value))?.id;
}

/** An option id or label as the option id; anything else is 400 invalid_type (docs/api.md §2). */
export function expectOption(field: FieldDefinition, value: unknown, param: string): string {
  const id = typeof value === 'string' ? optionIdOf(field, value) : undefined;
  if (id === undefined) throw ApiError.invalidType(param, `an option id or label of ${field.key}`);
  return id;
}

/** A string schema whose enum lists the option ids and labels (no enum when there are no options). */
export function optionSchema(field: FieldDefinition): OpenApiSchema {
  const options = field.typeConfiguration?.options ?? [];
  const values = [...new Set(options.flatMap((option) => [option.id, option.label]))];
  return values.length ? { type: 'string', enum: values } : { type: 'string' };
}
