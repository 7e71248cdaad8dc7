import { sourceFiles } from '../test/support/source-files';

// The layers of src/ (config < database < common < records < modules < the application) are held by
// eslint.config.mjs's no-restricted-imports: an upward import fails `npm run lint`.

/**
 * Global modules are for what every module needs: the configuration (in app.module.ts) and the
 * database. Every other module is imported where it is used, and exports services, not
 * repositories: other modules call the owning module's service.
 */
const GLOBAL_ALLOWED = new Set(['app.module.ts', 'database/database.module.ts']);

/** The `*Repository` names in a module's `exports: [...]`. */
function exportedRepositories(text: string): string[] {
  const exported = /\bexports\s*:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? '';
  return [...exported.matchAll(/\b(\w+Repository)\b/g)].map((match) => match[1]);
}

describe('modules of src/', () => {
  const modules = sourceFiles().filter(({ name }) => name.endsWith('.module.ts'));

  it('only the configuration and the database are global modules', () => {
    const global = modules.filter(({ text }) => /@Global\(\)/.test(text)).map(({ name }) => name);
    expect(global.filter((name) => !GLOBAL_ALLOWED.has(name))).toEqual([]);
  });

  it('no module exports a repository', () => {
    const exported = modules.flatMap(({ name, text }) =>
      exportedRepositories(text).map((repository) => `${name} ${repository}`),
    );
    expect(exported).toEqual([]);
  });

  it('reads a module’s exported repositories', () => {
    expect(
      exportedRepositories('@Module({ providers: [A], exports: [FooService, BarRepository,\n BazRepository] })'),
    ).toEqual(['BarRepository', 'BazRepository']);
  });
});
