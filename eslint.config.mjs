// @ts-check
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * The layers of src/, lowest first: a file may import from its own layer and the ones below it,
 * never from one above (what two layers share lives in the lower one). Anything not listed
 * (main.ts, app.module.ts, bootstrap/, cli/) is the application, on top of all of them.
 */
const LAYERS = ['config', 'database', 'common', 'records', 'modules'];

const layerRules = LAYERS.slice(0, -1).map((layer, index) => {
  const above = [...LAYERS.slice(index + 1), 'app.module', 'app.setup', 'main', 'bootstrap', 'cli'];
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: above.map((name) => ({
            regex: `^(\\.\\./)+${name.replace('.', '\\.')}(/|$)`,
            message: `src/${layer} may not import from src/${name}: a layer imports only from itself and the layers below it (eslint.config.mjs).`,
          })),
        },
      ],
    },
  };
});

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'clients/typescript/src/schema.ts', '**/*.js', '**/*.mjs'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection: the service answers before its write failed.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Ports (file storage, the throttler's storage) are async by contract; an in-process implementation need not await.
      '@typescript-eslint/require-await': 'off',
      // Nest's reflection hands handlers and classes out as `Function` (ExecutionContext.getHandler/getClass, Reflector).
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // `_name` marks what a signature or a destructuring must name but does not use (Nest's parameter decorators, omitted keys).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  ...layerRules,
  {
    // A repository is its module's own: another directory reaches its table through the service the
    // module exports (src/architecture.spec.ts holds the modules' exports to it); its row types are
    // the module's to share. A module's file provides its repositories wherever they sit.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.module.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+[^./][^/]*/(.*/)?[^/]+\\.repository$',
              allowTypeImports: true,
              message: 'a repository is imported only in its own directory: call the service its module exports.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests read supertest's untyped bodies and spy on methods: the unsafe-any and unbound-method rules would flag every assertion.
    files: ['test/**/*.ts', '**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.int-spec.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  prettier,
);
