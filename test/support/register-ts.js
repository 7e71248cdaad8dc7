'use strict';
/**
 * `node -r ./test/support/register-ts.js entry.ts`: runs this repository's TypeScript in a plain
 * Node process, compiling each module as it loads with the project's compiler options. Tests use
 * it for what cannot run inside jest's module sandbox: the real service process (`src/main.ts`),
 * and the ESM-only embedded PostgreSQL package. `isolatedModules` makes this per-file output the
 * same as tsc's; types are checked by `npm run typecheck`, not here.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const root = path.resolve(__dirname, '..', '..');
const { config } = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root);
const compilerOptions = { ...options, sourceMap: false, inlineSourceMap: true, declaration: false, noEmit: false };

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions });
  module._compile(outputText, filename);
};
