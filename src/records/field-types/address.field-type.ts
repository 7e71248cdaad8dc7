import { ApiError } from '../../common/errors/api-error';
import { compositeFieldType, stringMember } from './composite-field-type';
import type { NumberMember } from './composite-field-type';

function coordinate(name: string, limit: number): NumberMember {
  return {
    name,
    kind: 'number',
    refine: (value, param) => {
      if (Math.abs(value) > limit)
        throw ApiError.invalidValue(param, `${param} must be between -${limit} and ${limit}`);
      return value;
    },
    schema: { minimum: -limit, maximum: limit },
  };
}

/**
 * ADDRESS: members city, country, latitude, longitude, postalCode, state, street, street2 (all
 * optional). `country` is two letters A–Z (not checked against the ISO 3166-1 list), stored
 * uppercased; latitude within ±90, longitude within ±180.
 */
export const addressFieldType = compositeFieldType(
  'ADDRESS',
  [
    stringMember('city'),
    {
      name: 'country',
      kind: 'string',
      refine: (value, param) => {
        if (!/^[A-Za-z]{2}$/.test(value))
          throw ApiError.invalidValue(param, `${param} must be a two-letter country code`);
        return value.toUpperCase();
      },
      filterValue: (raw) => (/^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : undefined),
      schema: { pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 code' },
    },
    coordinate('latitude', 90),
    coordinate('longitude', 180),
    stringMember('postalCode'),
    stringMember('state'),
    stringMember('street'),
    stringMember('street2'),
  ],
  { street: '12 Market Street', city: 'London', postalCode: 'EC1A 1BB', country: 'GB' },
);
