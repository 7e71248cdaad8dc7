import { sourceFiles } from '../../test/support/source-files';

/**
 * The one way src/ reaches PostgreSQL: `Transactions.repository` for TypeORM's repositories and
 * query builders, `Transactions.query` for a hand-written statement and `Transactions.run` for a
 * transaction (src/database/transactions.ts), all joining the ambient transaction. These files are the exceptions, each for a
 * reason of its own; migrations (TypeORM migrations by design) are left out like in table-owners.
 */
const ALLOWED = new Set([
  // The one place that takes connections from TypeORM and sends statements through pg.
  'database/transactions.ts',
  // Runs the migrations on a DataSource of its own, before the service starts.
  'database/migrate.ts',
  // Creates the database of an embedded PostgreSQL (tests, local runs) before there is a DataSource.
  'database/embedded-postgres.ts',
  // Session-level locks on a connection of their own: a pooled one returns to the pool with its locks.
  'database/session-locks.ts',
  // LISTEN on a session of its own: a pooled one returns to the pool, and a pooler in transaction mode keeps no LISTEN.
  'database/notifications.ts',
  // Connections outside TypeORM's pool: SessionLocks' session, the webhook queue's pool (graphile-worker takes a pg Pool).
  'database/own-connections.ts',
]);

/** Receivers of a `.query(` call that are no database handle: the file URL signer's query string. */
const NOT_DATABASE = new Set(['transactions', 'signer']);

/** What reaching the database another way takes; each found outside ALLOWED is reported. */
const OTHER_WAYS: [what: string, pattern: RegExp][] = [
  ["TypeORM's DataSource", /\bDataSource\b/g],
  ['a TypeORM query runner', /\b(QueryRunner|createQueryRunner)\b/g],
  ['an EntityManager (`.manager`)', /\.manager\b/g],
  ['an entity repository', /\bgetRepository\b|\bRepository\s*</g],
  // A query builder of Transactions.repository joins the ambient transaction; one of a runner does not.
  [
    'a query builder not of Transactions.repository',
    /\b(?:runner|queryRunner|connection)\s*\.\s*createQueryBuilder\b/g,
  ],
  ["TypeORM's internals (`databaseConnection`, `.driver`, `.master`)", /\bdatabaseConnection\b|\.driver\b|\.master\b/g],
  ['the pg driver', /\bfrom\s+['"]pg['"]|\brequire\s*\(\s*['"]pg['"]\s*\)/g],
];

/** The code without its comments (which may name any of these to explain a choice), lines kept. */
function withoutComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ''))
    .replace(/(^|[^:])\/\/.*$/gm, '$1');
}

/** `name:line what` for each way to the database other than Transactions' in `text`. */
export function otherWays(name: string, text: string): string[] {
  const code = withoutComments(text);
  const line = (index: number) => code.slice(0, index).split('\n').length;
  const found = OTHER_WAYS.flatMap(([what, pattern]) =>
    [...code.matchAll(pattern)].map((match) => ({ at: match.index, what })),
  );
  for (const match of code.matchAll(/([\w$]+)\s*\)?\s*\.\s*query\s*(?:<[^()]*?>)?\s*\(/g)) {
    if (!NOT_DATABASE.has(match[1]))
      found.push({ at: match.index, what: `\`${match[1]}.query(\`, not Transactions.query` });
  }
  return found.sort((a, b) => a.at - b.at).map(({ at, what }) => `${name}:${line(at)} ${what}`);
}

/**
 * Files outside src/database/ that send a statement without being a repository (`*.repository.ts`,
 * each the owner of its tables). None today: a new one is a module writing another's SQL.
 */
const STATEMENTS_OUTSIDE_REPOSITORIES = new Set<string>([]);

/** Whether `text` sends a statement through Transactions (a hand-written one, or a TypeORM repository's). */
function sendsStatements(text: string): boolean {
  return /\btransactions\s*\.\s*(?:query|repository)\s*(?:<[^()]*?>)?\s*\(/.test(withoutComments(text));
}

describe('one way to the database', () => {
  it('statements are sent only by repositories and src/database/', () => {
    const senders = sourceFiles()
      .filter(({ name }) => !name.startsWith('database/') && !name.endsWith('.repository.ts'))
      .filter(({ text }) => sendsStatements(text))
      .map(({ name }) => name);
    expect(senders).toEqual([...STATEMENTS_OUTSIDE_REPOSITORIES]);
  });

  it('tells a statement sent from one in a comment', () => {
    expect(sendsStatements('await this.transactions.query<Row>(`SELECT 1`, []);')).toBe(true);
    expect(sendsStatements('return this.transactions.repository(MemberEntity).find();')).toBe(true);
    expect(sendsStatements('// a repository calls this.transactions.query(…)')).toBe(false);
    expect(sendsStatements('return this.transactions.run(() => work());')).toBe(false);
  });

  it('src/ runs SQL only through Transactions', () => {
    const found = sourceFiles()
      .filter(({ name }) => !ALLOWED.has(name))
      .flatMap(({ name, text }) => otherWays(name, text));
    expect(found).toEqual([]);
  });

  it('finds each other way, in code and not in comments', () => {
    const text = [
      "import { Client } from 'pg';",
      'constructor(private readonly dataSource: DataSource) {}',
      'await this.transactions.manager.query(`SELECT 1`);',
      'await (lockWith ?? manager).query(`SELECT 1`);',
      'return this.transactions.manager.getRepository(MemberEntity).find();',
      'await runner.createQueryBuilder().insert().execute();',
      '(runner as unknown as { databaseConnection: PoolClient }).databaseConnection;',
      "// TypeORM's manager.query answers an UPDATE with [rows, count]; DataSource",
      'await this.transactions.query(`SELECT 1`, []);',
      'const rows = await manager.query<Row[]>(`SELECT 1`);',
      "const url = this.signer.query({ action: 'download' }, expires);",
    ].join('\n');
    expect(otherWays('f.ts', text)).toEqual([
      'f.ts:1 the pg driver',
      "f.ts:2 TypeORM's DataSource",
      'f.ts:3 an EntityManager (`.manager`)',
      'f.ts:3 `manager.query(`, not Transactions.query',
      'f.ts:4 `manager.query(`, not Transactions.query',
      'f.ts:5 an EntityManager (`.manager`)',
      'f.ts:5 an entity repository',
      'f.ts:6 a query builder not of Transactions.repository',
      "f.ts:7 TypeORM's internals (`databaseConnection`, `.driver`, `.master`)",
      "f.ts:7 TypeORM's internals (`databaseConnection`, `.driver`, `.master`)",
      'f.ts:10 `manager.query(`, not Transactions.query',
    ]);
  });
});
