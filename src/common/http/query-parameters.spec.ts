import { thrownApiError } from '../../../test/support/errors';
import {
  OtherParametersIgnored,
  QueryAsSent,
  QueryCursor,
  QueryInteger,
  QueryNameList,
  QueryText,
  TextThat,
  validateQuery,
} from './query-parameters';

class ExampleQueryDto {
  @QueryInteger(1, 25)
  limit?: number;

  @QueryInteger(0)
  offset?: number;

  @QueryNameList('record types')
  types?: string[];

  @QueryText('word must be one word', {
    checks: [TextThat('oneWord', (text) => /^\w+$/.test(text), 'word must be one word')],
  })
  word?: string;

  @QueryCursor()
  cursor?: string;
}

const refusal = (query: Record<string, string | string[]>) => {
  const error = thrownApiError(() => validateQuery(ExampleQueryDto, query));
  return [error.status, error.code, error.param, error.message];
};

describe('validateQuery (query DTOs)', () => {
  it('answers an instance of the DTO with the values converted, and nothing for what is absent', () => {
    const query = validateQuery(ExampleQueryDto, { limit: '007', offset: '0', types: 'task, note ,task', word: 'w' });
    expect(query).toBeInstanceOf(ExampleQueryDto);
    expect({ ...query }).toEqual({ limit: 7, offset: 0, types: ['note', 'task'], word: 'w' });
    expect({ ...validateQuery(ExampleQueryDto, {}) }).toEqual({});
  });

  it.each([['0'], ['26'], ['-1'], ['1.5'], ['1e1'], ['+5'], [' 5'], ['0x10'], [''], [['1', '2']], ['9'.repeat(17)]])(
    'refuses the integer %j naming the parameter and its range',
    (raw) => {
      expect(refusal({ limit: raw })).toEqual([
        400,
        'invalid_parameter',
        'limit',
        'limit must be an integer from 1 to 25',
      ]);
    },
  );

  it('says an unbounded range as a minimum, and takes the largest safe integer', () => {
    expect(refusal({ offset: 'x' })[3]).toBe('offset must be an integer ≥ 0');
    expect(refusal({ offset: '9007199254740992' })[3]).toBe('offset must be an integer ≥ 0');
    expect(validateQuery(ExampleQueryDto, { offset: String(Number.MAX_SAFE_INTEGER) }).offset).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });

  it.each([[''], ['a,,b'], [' '], [['a', 'b']]])('refuses the name list %j', (raw) => {
    expect(refusal({ types: raw })).toEqual([
      400,
      'invalid_parameter',
      'types',
      'types is a comma-separated list of record types',
    ]);
  });

  it('refuses text given twice or that fails its check, with the message given', () => {
    expect(refusal({ word: ['a', 'b'] })).toEqual([400, 'invalid_parameter', 'word', 'word must be one word']);
    expect(refusal({ word: 'two words' })).toEqual([400, 'invalid_parameter', 'word', 'word must be one word']);
    expect(refusal({ cursor: ['a', 'b'] })).toEqual([400, 'invalid_parameter', 'cursor', 'cursor must be given once']);
  });

  it.each(['sort', 'limit[]', '__proto__', 'constructor', 'toString'])(
    'refuses %s, which the DTO does not declare, naming it',
    (name) => {
      expect(refusal({ [name]: '1' })).toEqual([
        400,
        'invalid_parameter',
        name,
        `${name} is not a query parameter of this route`,
      ]);
    },
  );

  it('hands the parameters the DTO does not declare to `other` once the declared ones passed', () => {
    const others: [string, string | string[]][] = [];
    const collect = (name: string, value: string | string[]) => others.push([name, value]);
    expect(validateQuery(ExampleQueryDto, { 'tag[eq]': ['a', 'b'], limit: '5' }, collect).limit).toBe(5);
    expect(others).toEqual([['tag[eq]', ['a', 'b']]]);
    expect(thrownApiError(() => validateQuery(ExampleQueryDto, { x: '1', limit: '0' }, collect)).param).toBe('limit');
  });

  it('refuses a required member when absent, and bounds text by its characters, as its document says', () => {
    class RequiredQueryDto {
      @QueryText('name must be 1 to 2 characters with a letter', {
        required: true,
        bounds: { minLength: 1, maxLength: 2, pattern: /\p{L}/u },
      })
      name: string;
    }
    const refused = (query: Record<string, string>) => thrownApiError(() => validateQuery(RequiredQueryDto, query));
    expect([refused({}).param, refused({}).message]).toEqual(['name', 'name is required']);
    // Two characters of two UTF-16 units each: code points, as JSON Schema's maxLength counts.
    expect(validateQuery(RequiredQueryDto, { name: '🦆é' }).name).toBe('🦆é');
    for (const name of ['', 'abc', '12'])
      expect(refused({ name }).message).toBe('name must be 1 to 2 characters with a letter');
    expect(Reflect.getMetadata('swagger/apiModelProperties', RequiredQueryDto.prototype, 'name')).toMatchObject({
      required: true,
      type: 'string',
      minLength: 1,
      maxLength: 2,
      pattern: '\\p{L}',
    });
  });

  it('ignores the parameters a DTO marked OtherParametersIgnored does not declare, and takes its own as sent', () => {
    @OtherParametersIgnored()
    class SignedQueryDto {
      @QueryAsSent()
      signature?: string | string[];
    }
    expect({ ...validateQuery(SignedQueryDto, { signature: ['a', 'b'], cache: '1' }) }).toEqual({
      signature: ['a', 'b'],
    });
  });
});
