import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { type ErrorCode, isErrorCode } from '../../src/common/errors/error-codes';

/** The file of `value` as Node loaded it: the module that exports it, else `undefined`. */
export function sourceFileOf(value: unknown): string | undefined {
  for (const loaded of Object.values(require.cache)) {
    const exported = loaded?.exports as Record<string, unknown> | undefined;
    if (!loaded || !exported || typeof exported !== 'object') continue;
    // Read without running getters: a module may export lazily computed members.
    const members = Object.values(Object.getOwnPropertyDescriptors(exported)).map((descriptor) => descriptor.value);
    if (members.includes(value)) return loaded.filename;
  }
  return undefined;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
}

/** `entry` and every repository file it reaches through its relative imports, at any depth. */
export function reachableFiles(entry: string): Set<string> {
  const reached = new Set<string>();
  const pending = [entry.replace(/\.js$/, '.ts')];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file) || !existsSync(file)) continue;
    reached.add(file);
    for (const { fileName } of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = resolveImport(file, fileName);
      if (target) pending.push(target);
    }
  }
  return reached;
}

/**
 * The codes `files` make errors of, `new ApiError(status, 'code'…)` (ApiError's own helpers, such as
 * `ApiError.notFound`, are written so in api-error.ts): what their code can throw, as far as a
 * reading can tell. A code only declared (`errors: [...]`, `ApiErrors`) is not one.
 */
export function codesThrownIn(files: Iterable<string>): Set<ErrorCode> {
  const codes = new Set<ErrorCode>();
  for (const file of files) {
    for (const [, code] of readFileSync(file, 'utf8').matchAll(/new ApiError\(\s*\d{3},\s*'([a-z_]+)'/g))
      if (isErrorCode(code)) codes.add(code);
  }
  return codes;
}
