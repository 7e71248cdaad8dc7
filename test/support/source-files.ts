import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

export const SRC = path.resolve(__dirname, '..', '..', 'src');

export interface SourceFile {
  /** The path under src/, with `/` between folders: `database/transactions.ts`. */
  name: string;
  /** The absolute path. */
  file: string;
  text: string;
}

function walk(directory: string, all: boolean): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(directory, entry.name);
    if (entry.isDirectory()) return !all && entry.name === 'migrations' ? [] : walk(file, all);
    return entry.name.endsWith('.ts') && (all || !entry.name.endsWith('.spec.ts')) ? [file] : [];
  });
}

/**
 * The TypeScript files of src/, read, for the architecture tests: the code the service runs (no
 * specs, and no migrations, which are written once and run as TypeORM's), or with `all` every file.
 */
export function sourceFiles({ all = false } = {}): SourceFile[] {
  return walk(SRC, all).map((file) => ({
    name: path.relative(SRC, file).split(path.sep).join('/'),
    file,
    text: readFileSync(file, 'utf8'),
  }));
}
