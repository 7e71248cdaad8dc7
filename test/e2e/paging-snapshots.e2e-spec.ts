import { apiSuite } from '../support/api-suite';
import { createWorkspace, TestWorkspace } from '../support/factories';

/**
 * How many items each writer adds while the readers page. A count, not a time: a busy machine
 * races through as many writes as a fast one (in 1.5 s, this one made 140 to 310).
 */
const WRITES_PER_WRITER = 50;
const WRITERS = 3;
const READERS = 3;
const LIMIT = 25;
const HOUR = 3_600_000;

interface Page {
  status: number;
  body: { data: { id: string; createdAt?: string }[]; totalCount: number };
}

/** What is wrong with a page read at `offset`: a page and its count must come from one snapshot. */
function pageProblem(page: Page, offset: number, ordered: boolean): string | undefined {
  if (page.status !== 200) return `status ${page.status}`;
  const { data, totalCount } = page.body;
  const expected = Math.max(0, Math.min(LIMIT, totalCount - offset));
  if (data.length !== expected) return `offset ${offset}: ${data.length} items, totalCount ${totalCount}`;
  if (new Set(data.map((item) => item.id)).size !== data.length) return `offset ${offset}: an item twice`;
  if (!ordered) return undefined;
  for (let index = 1; index < data.length; index += 1) {
    const [before, after] = [data[index - 1], data[index]];
    const newer =
      before.createdAt! > after.createdAt! || (before.createdAt === after.createdAt && before.id > after.id);
    if (!newer) return `offset ${offset}: ${before.id} (${before.createdAt}) before ${after.id} (${after.createdAt})`;
  }
  return undefined;
}

/**
 * Writers add items while readers page, until every writer is done. Readers mostly read the last,
 * partial page (offset just below the last count seen), where an item added between a count and
 * its page would show as one item too many; and sometimes the first page.
 */
async function race(write: () => Promise<unknown>, read: (offset: number) => Promise<Page>, ordered: boolean) {
  const problems: string[] = [];
  let writes = 0;
  let reads = 0;
  let lastTotal = 0;
  let writing = WRITERS;
  const writer = async () => {
    try {
      for (let i = 0; i < WRITES_PER_WRITER; i += 1) {
        await write();
        writes += 1;
      }
    } finally {
      writing -= 1;
    }
  };
  const reader = async (index: number) => {
    while (writing > 0) {
      const offset = (reads + index) % 4 === 0 ? 0 : Math.max(0, lastTotal - 3);
      const page = await read(offset);
      reads += 1;
      lastTotal = Math.max(lastTotal, page.body.totalCount ?? 0);
      const problem = pageProblem(page, offset, ordered);
      if (problem) problems.push(problem);
    }
  };
  await Promise.all([
    ...Array.from({ length: WRITERS }, writer),
    ...Array.from({ length: READERS }, (_unused, index) => reader(index)),
  ]);
  return { problems, writes, reads };
}

describe('paged lists take their count and page from one snapshot while others write', () => {
  const suite = apiSuite();
  let fresh: TestWorkspace;
  const page = (path: string) => async (offset: number) =>
    (await suite.get(`${path}?limit=${LIMIT}&offset=${offset}`, fresh.key)) as Page;
  const created = async (path: string, body: unknown) => {
    const response = await suite.post(path, body, fresh.key);
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.id as string;
  };

  beforeEach(async () => {
    fresh = await createWorkspace(suite.t.http);
  });

  const expectClean = (result: { problems: string[]; writes: number; reads: number }) => {
    expect(result.problems).toEqual([]);
    expect(result.writes).toBe(WRITERS * WRITES_PER_WRITER);
    expect(result.reads).toBeGreaterThanOrEqual(READERS);
  };

  it('GET /v1/lists', async () => {
    expectClean(
      await race(
        () => created('/v1/lists', { fields: { $name: 'L', $objectType: 'account' } }),
        page('/v1/lists'),
        true,
      ),
    );
  });

  it('GET /v1/files, newest first by the createdAt shown, then id', async () => {
    const file = { filename: 'f.txt', mimeType: 'text/plain', sizeBytes: 1 };
    expectClean(await race(() => created('/v1/files', file), page('/v1/files'), true));
  });

  it('GET /v1/lists/{id}/accounts', async () => {
    const list = await created('/v1/lists', { fields: { $name: 'Members', $objectType: 'account' } });
    const addAccount = async () => {
      const account = await created('/v1/accounts', { fields: { $name: 'A' } });
      await created(`/v1/lists/${list}`, { relationships: { $accounts: { add: account } } });
    };
    expectClean(await race(addAccount, page(`/v1/lists/${list}/accounts`), false));
  });

  it('GET /v1/meetings', async () => {
    const past = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();
    const meeting = { fields: { $title: 'M', $startDate: past(2), $endDate: past(1), $privacySetting: 'METADATA' } };
    expectClean(await race(() => created('/v1/meetings', meeting), page('/v1/meetings'), true));
  });
});
