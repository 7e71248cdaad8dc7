import { numericFieldType } from './number.field-type';

/**
 * CURRENCY: a finite amount stored as a JSON number (no rounding to minor units);
 * `typeConfiguration.currency` (ISO 4217) is informative and only documented in the schema.
 */
export const currencyFieldType = numericFieldType('CURRENCY', (field) => {
  const currency = field.typeConfiguration?.currency;
  return { type: 'number', example: 1250, ...(currency ? { description: `Amount in ${currency}` } : {}) };
});
