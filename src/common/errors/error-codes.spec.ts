import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ApiError } from './api-error';
import { codesOf, ERROR_CODES, ERROR_TYPES, ErrorStatus, FRAMEWORK_EXCEPTION_CODES, isErrorCode } from './error-codes';
import { errorStatusDescription } from './error-responses';

const ROOT = path.join(__dirname, '../../..');

interface DocumentedCode {
  code: string;
  status: number;
  type: string;
}

/**
 * The codes of the error table in docs/api.md §2. A row is `| status | type | codes |`; its codes
 * are the backticked names of each `;`-separated item, before any `:` and outside parentheses
 * (which explain them and may quote other names, such as `limit`).
 */
function documentedCodes(): DocumentedCode[] {
  const page = readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8');
  const section = page.slice(page.indexOf('\n## 2. Errors'), page.indexOf('\n## 3.'));
  return section
    .split('\n')
    .map((line) => /^\| (\d{3}) \| ([a-z_]+) \| (.+) \|$/.exec(line))
    .filter((row) => row !== null)
    .flatMap(([, status, type, cell]) =>
      cell
        .replace(/\([^)]*\)/g, '')
        .split(';')
        .flatMap((item) => item.split(':')[0].match(/`[a-z_]+`/g) ?? [])
        .map((quoted) => ({ code: quoted.slice(1, -1), status: Number(status), type })),
    );
}

describe('the error catalogue', () => {
  it('gives each code the type of its status', () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect({ code, type: entry.type }).toEqual({ code, type: ERROR_TYPES[entry.status] });
    }
  });

  it('uses every status it types', () => {
    for (const status of Object.keys(ERROR_TYPES).map(Number) as ErrorStatus[]) {
      expect({ status, codes: codesOf(status).length > 0 }).toEqual({ status, codes: true });
    }
  });

  it('lists the same codes, statuses and types as the table of docs/api.md §2', () => {
    const documented = documentedCodes();
    const catalogued = Object.entries(ERROR_CODES).map(([code, { status, type }]) => ({ code, status, type }));
    const byCode = (a: DocumentedCode, b: DocumentedCode) => a.code.localeCompare(b.code);
    expect(documented.length).toBeGreaterThan(30);
    expect([...documented].sort(byCode)).toEqual([...catalogued].sort(byCode));
  });

  it.each(['docs/api.md', 'README.md'])('is what %s means wherever it names a status and a code', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    const mentions = [...text.matchAll(/\b(\d{3}) `([a-z_]+)`/g)].map(([, status, code]) => ({
      code,
      status: Number(status),
    }));
    expect(mentions.length).toBeGreaterThan(10);
    for (const { code, status } of mentions) {
      expect({ code, status, catalogued: isErrorCode(code) ? ERROR_CODES[code].status : undefined }).toEqual({
        code,
        status,
        catalogued: status,
      });
    }
  });

  it('answers a framework exception of a status with a code of that status', () => {
    for (const [status, code] of Object.entries(FRAMEWORK_EXCEPTION_CODES)) {
      expect(ERROR_CODES[code].status).toBe(Number(status));
    }
  });

  it('recognises its own codes only, Object.prototype names included', () => {
    expect(isErrorCode('not_found')).toBe(true);
    for (const name of ['nope', 'constructor', '__proto__', 'toString', 404, undefined])
      expect(isErrorCode(name)).toBe(false);
  });

  it('sends the type of the code with the body', () => {
    expect(new ApiError(409, 'duplicate_slug', 'taken', 'slug').toBody()).toEqual({
      error: { type: 'conflict', code: 'duplicate_slug', message: 'taken', param: 'slug' },
    });
  });

  it('describes an error response in the OpenAPI document with its type and exactly the codes given, in catalogue order', () => {
    for (const status of Object.keys(ERROR_TYPES).map(Number) as ErrorStatus[]) {
      const codes = codesOf(status);
      const description = errorStatusDescription(status, [...codes].reverse());
      expect(description).toContain(ERROR_TYPES[status]);
      const listed = [...description.matchAll(/^- `([a-z_]+)`: /gm)].map(([, code]) => code);
      expect({ status, listed }).toEqual({ status, listed: codes });
    }
    expect(errorStatusDescription(409, ['duplicate_slug'])).not.toContain('`duplicate_value`');
  });
});
