import { Type as TransformType } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsEmail, IsIn, IsInt, IsOptional, IsString, Length, Max, ValidateNested } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { createValidationPipe } from './validation.pipe';

class AddressDto {
  @IsString()
  @Length(1, 100)
  city: string;
}

/** Decorators in the order the DTOs of the service write them: the type check on top. */
class BodyDto {
  @IsString()
  @Length(1, 10)
  name: string;

  @IsOptional()
  @IsString()
  @IsEmail({}, { message: 'email must be an email address' })
  email?: string;

  @IsOptional()
  @IsIn(['admin', 'member'])
  role?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @IsIn(['a', 'b', 'c'], { each: true })
  letters?: string[];

  @IsOptional()
  @IsInt()
  @Max(10)
  count?: number;

  @IsOptional()
  @ValidateNested()
  @TransformType(() => AddressDto)
  address?: AddressDto;
}

async function refusal(value: unknown): Promise<ApiError> {
  try {
    await createValidationPipe().transform(value, { type: 'body', metatype: BodyDto });
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`${JSON.stringify(value)} was accepted`);
}

describe('validation pipe error mapping (decisions §2)', () => {
  it('accepts and transforms a valid body', async () => {
    const body = { name: 'Ada', email: 'ada@example.com', role: 'admin', letters: ['a', 'c'], count: 3, address: { city: 'Paris' } };
    const result = await createValidationPipe().transform(body, { type: 'body', metatype: BodyDto });
    expect(result).toBeInstanceOf(BodyDto);
    expect((result as BodyDto).address).toBeInstanceOf(AddressDto);
    expect(result).toEqual(body);
  });

  it.each([
    ['absent', {}],
    ['null', { name: null }],
  ])('answers 422 parameter_missing when a required member is %s', async (_case, body) => {
    const error = await refusal(body);
    expect([error.status, error.code, error.param]).toEqual([422, 'parameter_missing', 'name']);
    expect(error.message).toBe('name is required');
  });

  it.each([
    ['a number for a string with a length', { name: 5 }, 'name', 'name must be a string'],
    ['an array for a string', { name: ['x'] }, 'name', 'name must be a string'],
    ['a number for an email', { name: 'x', email: 5 }, 'email', 'email must be a string'],
    ['a value outside an enum', { name: 'x', role: 'owner' }, 'role', undefined],
    ['a string for an array', { name: 'x', letters: 'abc' }, 'letters', undefined],
    ['an array item outside the enum', { name: 'x', letters: ['a', 'z'] }, 'letters', undefined],
    ['a fraction for an integer', { name: 'x', count: 1.5 }, 'count', undefined],
    ['a string for a nested object', { name: 'x', address: 'Paris' }, 'address', undefined],
    ['a number in a nested member', { name: 'x', address: { city: 7 } }, 'address.city', 'city must be a string'],
  ])('answers 400 invalid_type for %s', async (_case, body, param, message) => {
    const error = await refusal(body);
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_type', param]);
    if (message) expect(error.message).toBe(message);
  });

  it.each([
    ['an empty string', { name: '' }, 'name'],
    ['a string too long', { name: 'x'.repeat(11) }, 'name'],
    ['an email that does not parse', { name: 'x', email: 'nope' }, 'email'],
    ['too many items', { name: 'x', letters: ['a', 'b', 'c'] }, 'letters'],
    ['a number out of range', { name: 'x', count: 11 }, 'count'],
    ['an empty nested member', { name: 'x', address: { city: '' } }, 'address.city'],
  ])('answers 422 invalid_value for %s', async (_case, body, param) => {
    const error = await refusal(body);
    expect([error.status, error.code, error.param]).toEqual([422, 'invalid_value', param]);
  });

  it('answers 422 parameter_missing, with a dotted param, for a missing nested member', async () => {
    const error = await refusal({ name: 'x', address: {} });
    expect([error.status, error.code, error.param]).toEqual([422, 'parameter_missing', 'address.city']);
  });

  it.each([
    ['at the top level', { name: 'x', nickname: 'y' }, 'nickname'],
    ['in a nested object', { name: 'x', address: { city: 'Paris', zip: '75001' } }, 'address.zip'],
  ])('answers 400 unknown_field for a member %s', async (_case, body, param) => {
    const error = await refusal(body);
    expect([error.status, error.code, error.param]).toEqual([400, 'unknown_field', param]);
    expect(error.message).toBe(`${param} is not a known field`);
  });
});
