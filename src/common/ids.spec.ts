import { ID_PREFIXES, IdKind, isAnyId, isIdOf, newId } from './ids';

const KINDS = Object.keys(ID_PREFIXES) as IdKind[];
/** Crockford's base 32, in which a ULID is written. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The ten characters of a ULID that encode `time` (ms since the epoch). */
function encodedTime(time: number): string {
  let text = '';
  for (let rest = time, i = 0; i < 10; i += 1, rest = Math.floor(rest / 32)) text = ALPHABET[rest % 32] + text;
  return text;
}

describe('ids', () => {
  it('has the prefixes of docs/api.md §3', () => {
    expect(ID_PREFIXES).toEqual(
      expect.objectContaining({
        account: 'acc',
        contact: 'con',
        opportunity: 'opp',
        member: 'mem',
        note: 'note',
        task: 'task',
        meeting: 'mtg',
        list: 'lst',
        file: 'fil',
        record: 'rec',
        workspace: 'wks',
        apiKey: 'key',
      }),
    );
  });

  it.each(KINDS)('makes %s ids of the form prefix_ULID that isIdOf recognises', (kind) => {
    const id = newId(kind);
    expect(id).toMatch(new RegExp(`^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$`));
    expect(isIdOf(kind, id)).toBe(true);
  });

  it('knows an id of any kind by its shape alone (isAnyId), and nothing else', () => {
    for (const kind of KINDS) expect({ kind, is: isAnyId(newId(kind)) }).toEqual({ kind, is: true });
    const id = newId('note');
    for (const other of ['xyz_' + id.slice(5), id.slice(0, -1), `${id}\n`, id.toLowerCase(), 42, undefined]) {
      expect({ other, is: isAnyId(other) }).toEqual({ other, is: false });
    }
  });

  it('does not take an id of one kind for another', () => {
    for (const kind of KINDS) {
      for (const other of KINDS.filter((k) => ID_PREFIXES[k] !== ID_PREFIXES[kind])) {
        expect({ kind, other, is: isIdOf(kind, newId(other)) }).toEqual({ kind, other, is: false });
      }
    }
  });

  it.each([
    ['lower case', (id: string) => id.toLowerCase().replace(/^mem_/, 'mem_')],
    ['one character short', (id: string) => id.slice(0, -1)],
    ['one character long', (id: string) => `${id}0`],
    ['a letter outside Crockford base32 (U)', (id: string) => `${id.slice(0, -1)}U`],
    ['no separator', (id: string) => id.replace('_', '')],
    ['surrounding space', (id: string) => ` ${id}`],
    ['a trailing newline', (id: string) => `${id}\n`],
  ])('refuses an id with %s', (_case, change) => {
    expect(isIdOf('member', change(newId('member')))).toBe(false);
  });

  it.each([undefined, null, 42, {}, ['mem_01JD6Y3Z8Q0N5V4W7X2C9B1A3E']])('refuses the non-string %p', (value) => {
    expect(isIdOf('member', value)).toBe(false);
  });

  it('makes ids that sort in creation order, even within one millisecond, across kinds', () => {
    const ids = Array.from({ length: 2000 }, (_unused, i) => newId(KINDS[i % KINDS.length]));
    const ulids = ids.map((id) => id.slice(id.indexOf('_') + 1));
    expect(new Set(ulids).size).toBe(ulids.length);
    expect([...ulids].sort()).toEqual(ulids);
  });

  describe('on a clock the test sets', () => {
    // ulid reads Date.now. Set ahead of every id made so far, so that the monotonic generator
    // takes the clock's time rather than going on from the last id's.
    let now = Date.now() + 86_400_000;
    beforeEach(() => jest.spyOn(Date, 'now').mockImplementation(() => now));
    afterEach(() => jest.restoreAllMocks());

    it('stamps the ULID with the creation time', () => {
      const ulid = newId('note').slice(5);
      const time = [...ulid.slice(0, 10)].reduce((value, char) => value * 32 + ALPHABET.indexOf(char), 0);
      expect(time).toBe(now);
    });

    it('draws the random part of ids made in different milliseconds from all 32 characters, evenly', () => {
      const counts = new Map<string, number>();
      for (let i = 0; i < 40; i += 1) {
        // A new millisecond, without sleeping for one.
        now += 1;
        const ulid = newId('note').slice(5);
        expect(ulid.slice(0, 10)).toBe(encodedTime(now));
        // Characters 10–25 are random; a new millisecond draws them afresh.
        for (const character of ulid.slice(10, 25)) counts.set(character, (counts.get(character) ?? 0) + 1);
      }
      expect(counts.size).toBe(32);
      // 600 draws over 32 characters: about 19 each; far outside 3–45 only if the draw is skewed.
      expect(Math.min(...counts.values())).toBeGreaterThanOrEqual(3);
      expect(Math.max(...counts.values())).toBeLessThanOrEqual(45);
    });
  });
});
