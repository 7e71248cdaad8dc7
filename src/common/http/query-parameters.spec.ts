import { thrownApiError } from '../../../test/support/errors';
import { integerQueryValue, nameListQueryValue } from './query-parameters';

const refusal = (parse: () => unknown) => {
  const error = thrownApiError(parse);
  return [error.status, error.code, error.param, error.message];
};

describe('integerQueryValue', () => {
  it('answers the integer, or undefined when the parameter is absent', () => {
    expect(integerQueryValue('7', 'limit', 1, 25)).toBe(7);
    expect(integerQueryValue('007', 'limit', 1, 25)).toBe(7);
    expect(integerQueryValue(undefined, 'limit', 1, 25)).toBeUndefined();
  });

  it.each([['0'], ['26'], ['-1'], ['1.5'], ['1e1'], [''], [['1', '2']], ['9'.repeat(17)]])(
    'refuses %j naming the parameter and its range',
    (raw) => {
      expect(refusal(() => integerQueryValue(raw, 'limit', 1, 25))).toEqual([
        400,
        'invalid_parameter',
        'limit',
        'limit must be an integer from 1 to 25',
      ]);
    },
  );

  it('says an unbounded range as a minimum', () => {
    expect(refusal(() => integerQueryValue('x', 'offset', 0, Number.MAX_SAFE_INTEGER))[3]).toBe(
      'offset must be an integer ≥ 0',
    );
  });
});

describe('nameListQueryValue', () => {
  it('answers the names trimmed, once each, sorted; undefined when absent', () => {
    expect(nameListQueryValue('task, note ,task', 'types', 'record types')).toEqual(['note', 'task']);
    expect(nameListQueryValue(undefined, 'types', 'record types')).toBeUndefined();
  });

  it.each([[''], ['a,,b'], [' '], [['a', 'b']]])('refuses %j', (raw) => {
    expect(refusal(() => nameListQueryValue(raw, 'types', 'record types'))).toEqual([
      400,
      'invalid_parameter',
      'types',
      'types is a comma-separated list of record types',
    ]);
  });
});
