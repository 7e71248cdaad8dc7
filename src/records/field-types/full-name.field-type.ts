import { compositeFieldType, stringMember } from './composite-field-type';

/** FULL_NAME: members firstName and lastName (optional strings of at most 10,000 characters). */
export const fullNameFieldType = compositeFieldType(
  'FULL_NAME',
  [stringMember('firstName'), stringMember('lastName')],
  {
    firstName: 'Ada',
    lastName: 'Lovelace',
  },
);
