import * as path from 'node:path';
import { SRC, sourceFiles } from '../test/support/source-files';

/**
 * The layers of src/, lowest first. A file may import from its own layer and the ones below it,
 * never from one above: what two layers share lives in the lower one, and a lower layer that needs
 * something of a higher one declares it (an injection token) for the higher one to provide.
 * Anything not listed (main.ts, app.module.ts, bootstrap/, cli/) is the application, on top.
 */
const LAYERS = [
  ['config', 'settings read from the environment'],
  ['database', 'the connection, transactions, entities and migrations'],
  ['common', 'the request pipeline and what every module uses: auth, errors, HTTP, rate limits'],
  ['records', 'the records core: definitions, values, links, filters'],
  ['modules', 'the API’s modules, each on the records core'],
] as const;
const APPLICATION = LAYERS.length;

function layerOf(file: string): number {
  const top = path.relative(SRC, file).split(path.sep)[0];
  const index = LAYERS.findIndex(([name]) => name === top);
  return index === -1 ? APPLICATION : index;
}

function layerName(layer: number): string {
  return layer === APPLICATION ? 'the application' : LAYERS[layer][0];
}

/** Every module a file names: static imports and re-exports (types included), `import()` and `require()`. */
function importsOf(text: string): string[] {
  const specifiers = /(?:\bfrom\s+|\bimport\s+|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;
  return [...text.matchAll(specifiers)].map((match) => match[1]);
}

describe('layers of src/', () => {
  it('no file imports from a layer above its own', () => {
    const upward: string[] = [];
    for (const { file, text } of sourceFiles({ all: true })) {
      for (const specifier of importsOf(text)) {
        if (!specifier.startsWith('.')) continue;
        const target = path.resolve(path.dirname(file), specifier);
        // Specs may use the test support beside src/, which is no layer of the service.
        if (path.relative(SRC, target).startsWith('..')) continue;
        if (layerOf(target) > layerOf(file)) {
          upward.push(
            `${path.relative(SRC, file)} (${layerName(layerOf(file))}) imports ${path.relative(SRC, target)} (${layerName(layerOf(target))})`,
          );
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it('reads imports the way the source writes them', () => {
    const text = [
      "import { A } from '../modules/a';",
      "import type { B } from './b';",
      'export { C } from "../c";',
      "import {\n  D,\n  E,\n} from '../d';",
      "import './side-effect';",
      "const f = await import('../f');",
      "const g = require('../g');",
    ].join('\n');
    expect(importsOf(text)).toEqual(['../modules/a', './b', '../c', '../d', './side-effect', '../f', '../g']);
  });
});

/**
 * Global modules are for what every module needs: the configuration (in app.module.ts) and the
 * database. Every other module is imported where it is used, and exports services, not
 * repositories: other modules call the owning module's service. STILL_GLOBAL and
 * STILL_EXPORTING_REPOSITORIES are what is left to move; each only shrinks (an entry that no longer
 * holds fails too, so that it is struck off).
 */
const GLOBAL_ALLOWED = new Set(['app.module.ts', 'database/database.module.ts']);
const STILL_GLOBAL = new Set([
  'common/idempotency/idempotency.module.ts',
  'modules/observability/observability.module.ts',
  'records/records.module.ts',
]);
const STILL_EXPORTING_REPOSITORIES = new Set([
  'common/idempotency/idempotency.module.ts IdempotencyRepository',
  'modules/auth/auth.module.ts ApiKeysRepository',
  'modules/files/files.module.ts FilesRepository',
  'modules/members/members.module.ts MembersRepository',
  'records/records.module.ts DefinitionsRepository',
  'records/records.module.ts WorkspacesRepository',
  'records/records.module.ts EventsRepository',
]);

/** The `*Repository` names in a module's `exports: [...]`. */
function exportedRepositories(text: string): string[] {
  const exported = /\bexports\s*:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  return [...exported.matchAll(/\b(\w+Repository)\b/g)].map((match) => match[1]);
}

describe('modules of src/', () => {
  const modules = sourceFiles().filter(({ name }) => name.endsWith('.module.ts'));

  it('only the configuration and the database are global modules', () => {
    const global = modules.filter(({ text }) => /@Global\(\)/.test(text)).map(({ name }) => name);
    expect(global.filter((name) => !GLOBAL_ALLOWED.has(name) && !STILL_GLOBAL.has(name))).toEqual([]);
    expect([...STILL_GLOBAL].filter((name) => !global.includes(name))).toEqual([]);
  });

  it('no module exports a repository', () => {
    const exported = modules.flatMap(({ name, text }) =>
      exportedRepositories(text).map((repository) => `${name} ${repository}`),
    );
    expect(exported.filter((entry) => !STILL_EXPORTING_REPOSITORIES.has(entry))).toEqual([]);
    expect([...STILL_EXPORTING_REPOSITORIES].filter((entry) => !exported.includes(entry))).toEqual([]);
  });

  it('reads a module’s exported repositories', () => {
    expect(
      exportedRepositories('@Module({ providers: [A], exports: [FooService, BarRepository,\n BazRepository] })'),
    ).toEqual(['BarRepository', 'BazRepository']);
  });
});
