import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
} from 'class-validator';
import { ApiError } from '../errors/api-error';
import { DtoMap, NestedDto } from './dto-shape';
import { PageQueryDto } from '../pagination/page-query.dto';
import { DtoValidationPipe, validateEntry } from './validation.pipe';
import { costGrowth, repeated } from '../../../test/support/cost-growth';
import { thrownApiError } from '../../../test/support/errors';

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
  @IsString({ each: true })
  tags?: string[];

  @IsOptional()
  @NestedDto(() => AddressDto)
  address?: AddressDto;

  @IsOptional()
  @IsArray()
  @NestedDto(() => AddressDto, { each: true })
  previous?: AddressDto[];
}

class EntryDto {
  @IsString()
  @Matches(/^[a-z]\w*$/)
  key: string;

  @IsString()
  label: string;

  @IsOptional()
  @IsString()
  note?: string | null;
}

class MapBodyDto {
  @IsOptional()
  @DtoMap(() => EntryDto, { keyMember: 'key' })
  entries?: Record<string, EntryDto>;
}

class NoMembersDto {}

/** A body whose member maps keys the handler checks (as a meeting update's `fields`), at two levels. */
class FreeMapDto {
  @IsOptional()
  @IsObject()
  map?: Record<string, unknown>;

  @IsOptional()
  @NestedDto(() => FreeMapDto)
  inner?: FreeMapDto;
}

function refusalOf(metatype: new () => object, value: unknown): ApiError {
  return thrownApiError(() => new DtoValidationPipe().transform(value, { type: 'body', metatype }));
}

function refusal(value: unknown): ApiError {
  return refusalOf(BodyDto, value);
}

function accepted<T extends object>(metatype: new () => T, value: unknown): T {
  return new DtoValidationPipe().transform(value, { type: 'body', metatype }) as T;
}

/** The error as the client sees it. */
function seen(error: ApiError): [number, string, string | undefined] {
  return [error.status, error.code, error.param];
}

describe('validation pipe error mapping (docs/api.md §2)', () => {
  it('accepts and transforms a valid body', async () => {
    const body = {
      name: 'Ada',
      email: 'ada@example.com',
      role: 'admin',
      letters: ['a', 'c'],
      count: 3,
      address: { city: 'Paris' },
    };
    const result = accepted(BodyDto, body);
    expect(result).toBeInstanceOf(BodyDto);
    expect(result.address).toBeInstanceOf(AddressDto);
    expect(result).toEqual(body);
  });

  it.each([
    ['absent', {}],
    ['null', { name: null }],
  ])('answers 422 parameter_missing when a required member is %s', async (_case, body) => {
    const error = refusal(body);
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
    [
      'a number in a nested member',
      { name: 'x', address: { city: 7 } },
      'address.city',
      'address.city must be a string',
    ],
  ])('answers 400 invalid_type for %s', async (_case, body, param, message) => {
    const error = refusal(body);
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
    const error = refusal(body);
    expect([error.status, error.code, error.param]).toEqual([422, 'invalid_value', param]);
  });

  it('answers 422 parameter_missing, with a dotted param, for a missing nested member', async () => {
    const error = refusal({ name: 'x', address: {} });
    expect([error.status, error.code, error.param]).toEqual([422, 'parameter_missing', 'address.city']);
  });

  it.each([
    ['at the top level', { name: 'x', nickname: 'y' }, 'nickname'],
    ['in a nested object', { name: 'x', address: { city: 'Paris', zip: '75001' } }, 'address.zip'],
  ])('answers 400 unknown_field for a member %s', async (_case, body, param) => {
    const error = refusal(body);
    expect([error.status, error.code, error.param]).toEqual([400, 'unknown_field', param]);
    expect(error.message).toBe(`${param} is not a known field`);
  });
});

describe('validation pipe: hostile bodies', () => {
  const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];

  it.each(PROTOTYPE_NAMES)('answers 400 unknown_field for a member named %s, at the top level and nested', (name) => {
    // JSON.parse makes `__proto__` an own key, as the body parser does.
    const top = JSON.parse(`{"name":"x","${name}":{"city":"Paris"}}`);
    expect(seen(refusal(top))).toEqual([400, 'unknown_field', name]);
    const nested = JSON.parse(`{"name":"x","address":{"city":"Paris","${name}":1}}`);
    expect(seen(refusal(nested))).toEqual([400, 'unknown_field', `address.${name}`]);
    const inArray = JSON.parse(`{"name":"x","previous":[{"city":"Paris"},{"city":"Oslo","${name}":"x"}]}`);
    expect(seen(refusal(inArray))).toEqual([400, 'unknown_field', `previous.1.${name}`]);
    expect(seen(refusalOf(NoMembersDto, JSON.parse(`{"${name}":1}`)))).toEqual([400, 'unknown_field', name]);
  });

  it('hands a free-form member over with every own key, prototype-named ones included, at every level', () => {
    const keys = [
      'hasOwnProperty',
      'toString',
      'valueOf',
      'isPrototypeOf',
      'propertyIsEnumerable',
      'toLocaleString',
      '__defineGetter__',
      'constructor',
      '__proto__',
      'a',
    ];
    const map = JSON.parse(`{${keys.map((key, index) => `"${key}":{"${key}":${index}}`).join(',')}}`) as Record<
      string,
      unknown
    >;
    const result = accepted(FreeMapDto, { map, inner: { map } });
    for (const given of [result.map!, result.inner!.map!]) {
      expect(Object.keys(given)).toEqual(keys);
      expect(keys.map((key) => Object.keys(given[key] as object))).toEqual(keys.map((key) => [key]));
    }
  });

  it('takes null for an optional member as absent, at every level', () => {
    const result = accepted(BodyDto, {
      name: 'x',
      email: null,
      role: null,
      letters: null,
      address: null,
      previous: [{ city: 'Oslo' }],
    });
    expect(result).toEqual({ name: 'x', previous: [{ city: 'Oslo' }] });
    expect(Object.values(result).includes(null)).toBe(false);
    const entries = accepted(MapBodyDto, { entries: { a: { label: 'A', note: null } } }).entries!;
    expect(entries.a).toEqual({ key: 'a', label: 'A' });
  });

  it('answers 422 parameter_missing for a null required member of a nested body', () => {
    expect(seen(refusal({ name: 'x', address: { city: null } }))).toEqual([422, 'parameter_missing', 'address.city']);
    expect(seen(refusalOf(MapBodyDto, { entries: { a: { label: null } } }))).toEqual([
      422,
      'parameter_missing',
      'entries.a.label',
    ]);
  });

  it.each([
    ['an empty array for a nested body', { address: [] }, 'address'],
    ['an array of bodies for a nested body', { address: [{ city: 'Paris' }] }, 'address'],
    ['an array in an array of bodies', { previous: [[]] }, 'previous.0'],
    ['a string in an array of bodies', { previous: [{ city: 'Paris' }, 'Oslo'] }, 'previous.1'],
    ['null in an array of bodies', { previous: [null] }, 'previous.0'],
    ['a string for an array of bodies', { previous: 'Oslo' }, 'previous'],
  ])('answers 400 invalid_type for %s, never reading it as a body', (_case, body, param) => {
    expect(seen(refusal({ name: 'x', ...body }))).toEqual([400, 'invalid_type', param]);
  });

  it('validates each entry of a map as a body of its own, the map key as its key member', () => {
    const result = accepted(
      MapBodyDto,
      JSON.parse('{"entries":{"b":{"label":"B"},"constructor":{"label":"C"},"toString":{"label":"T","key":"other"}}}'),
    );
    const entries = result.entries!;
    expect(Object.getPrototypeOf(entries)).toBeNull();
    expect(Object.keys(entries)).toEqual(['b', 'constructor', 'toString']);
    expect(entries.constructor).toBeInstanceOf(EntryDto);
    expect({ ...entries.constructor }).toEqual({ key: 'constructor', label: 'C' });
    expect((entries.toString as unknown as EntryDto).key).toBe('toString');
  });

  it.each([
    ['a string entry', { entries: { a: 'label' } }, 400, 'invalid_type', 'entries.a'],
    ['a null entry', { entries: { a: null } }, 400, 'invalid_type', 'entries.a'],
    ['an array entry', { entries: { a: [{ label: 'A' }] } }, 400, 'invalid_type', 'entries.a'],
    ['a string for the map', { entries: 'abc' }, 400, 'invalid_type', 'entries'],
    [
      'an unknown member in an entry',
      { entries: { a: { label: 'A', extra: 1 } } },
      400,
      'unknown_field',
      'entries.a.extra',
    ],
    ['a key the entry refuses', { entries: { '1a': { label: 'A' } } }, 422, 'invalid_value', 'entries.1a.key'],
  ])('answers a map with %s', (_case, body, status, code, param) => {
    expect(seen(refusalOf(MapBodyDto, body))).toEqual([status, code, param]);
  });

  it('answers 400 unknown_field for __proto__ as a member of a map entry', () => {
    const body = JSON.parse('{"entries":{"a":{"label":"A","__proto__":{"label":"B"}}}}');
    expect(seen(refusalOf(MapBodyDto, body))).toEqual([400, 'unknown_field', 'entries.a.__proto__']);
  });

  it('refuses a 300,000-character string given for a map entry at once, without reading it as an object', async () => {
    const body = (length: number) => ({ entries: { a: 'x'.repeat(length) } });
    expect(seen(refusalOf(MapBodyDto, body(300_000)))).toEqual([400, 'invalid_type', 'entries.a']);
    // At once: refusing a string 16 times as long takes no longer (reading it as an object, one
    // key per character, takes about 16 times as long). Ten refusals make a unit long enough to time.
    const refuse = repeated(10, (input: object) => refusalOf(MapBodyDto, input));
    expect(await costGrowth(refuse, body(5_000), body(80_000))).toBeLessThan(4);
  });

  it.each([
    ['a lone high surrogate in a member', { name: 'a\ud800' }, BodyDto, 'name'],
    ['a lone low surrogate in an array item', { name: 'x', tags: ['a', '\udc00'] }, BodyDto, 'tags.1'],
    ['NUL in a nested member', { name: 'x', address: { city: 'Pa\u0000ris' } }, BodyDto, 'address.city'],
    [
      'a lone surrogate in a body of an array',
      { name: 'x', previous: [{ city: 'Oslo' }, { city: '\ud800' }] },
      BodyDto,
      'previous.1.city',
    ],
    ['a lone surrogate in a map entry', { entries: { a: { label: 'x\udfff' } } }, MapBodyDto, 'entries.a.label'],
    ['a lone surrogate in a map key', { entries: { ['a\ud800']: { label: 'A' } } }, MapBodyDto, 'entries.a\ud800'],
  ])('answers 422 invalid_value for %s, as record fields do', (_case, body, metatype, param) => {
    const error = refusalOf(metatype, body);
    expect(seen(error)).toEqual([422, 'invalid_value', param]);
    expect(error.message).toContain('NUL or unpaired surrogate');
  });

  it('accepts text with surrogate pairs', () => {
    expect(accepted(BodyDto, { name: '😀 ok' }).name).toBe('😀 ok');
  });

  it('answers 400 invalid_type when validateEntry is given something other than an object', () => {
    expect(seen(thrownApiError(() => validateEntry(BodyDto, 'x', 'options')))).toEqual([
      400,
      'invalid_type',
      'options',
    ]);
  });

  it('leaves values and untyped bodies to their handlers', () => {
    const pipe = new DtoValidationPipe();
    const body = { anything: 'goes', __proto__: 1 };
    expect(pipe.transform(body, { type: 'body', metatype: Object })).toBe(body);
    expect(pipe.transform('mem_1', { type: 'param', metatype: String, data: 'id' })).toBe('mem_1');
    expect(pipe.transform(body, { type: 'custom', metatype: BodyDto })).toBe(body);
  });

  it('validates a query DTO as query parameters: 400 invalid_parameter, never a body error', () => {
    const pipe = new DtoValidationPipe();
    const query = pipe.transform({ limit: '5' }, { type: 'query', metatype: PageQueryDto }) as PageQueryDto;
    expect([query instanceof PageQueryDto, query.limit]).toEqual([true, 5]);
    for (const sent of [{ limit: '0' }, { sort: 'asc' }, { limit: ['1', '2'] }]) {
      const error = thrownApiError(() => pipe.transform(sent, { type: 'query', metatype: PageQueryDto }));
      expect([error.status, error.code, error.param]).toEqual([400, 'invalid_parameter', Object.keys(sent)[0]]);
    }
  });
});
