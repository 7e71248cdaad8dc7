import * as path from 'node:path';
import * as ts from 'typescript';

const CLIENT = path.resolve(__dirname, '..');
const CHECKS = path.join(__dirname, 'type-checks.ts');
const PARSED = new Map<string, ts.SourceFile>();
const DIRECTIVE = /\/\/ @ts-expect-error (TS\d+) `([^`]+)`/;

interface Expectation {
  line: number;
  code: string;
  text: string;
}

/**
 * Compiles type-checks.ts with the client's own compiler options (DOM types, no Node types: the
 * client must build for a browser too), its text rewritten by `edit`.
 */
function compile(edit: (text: string) => string, oldProgram?: ts.Program): ts.Program {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(CLIENT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  const options = { ...config!.options, noEmit: true, rootDir: CLIENT };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    if (path.resolve(fileName) === CHECKS)
      return ts.createSourceFile(fileName, edit(ts.sys.readFile(CHECKS)!), languageVersion);
    // The same object for an unchanged file lets the second compile reuse the first one's parse.
    const parsed = PARSED.get(fileName) ?? getSourceFile(fileName, languageVersion, ...rest);
    if (parsed) PARSED.set(fileName, parsed);
    return parsed;
  };
  return ts.createProgram({ rootNames: [CHECKS], options, host, oldProgram });
}

function describeDiagnostic(diagnostic: ts.Diagnostic): { line: number; code: string; text: string } {
  const line = diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1 : 0;
  const where = diagnostic.file ? path.relative(CLIENT, diagnostic.file.fileName) : '';
  return {
    line,
    code: `TS${diagnostic.code}`,
    text: `${where}:${line} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
  };
}

describe('the client’s types', () => {
  const text = ts.sys.readFile(CHECKS)!;
  const expectations: Expectation[] = text.split('\n').flatMap((source, index) => {
    const match = DIRECTIVE.exec(source);
    return match ? [{ line: index + 2, code: match[1], text: match[2] }] : [];
  });
  let asWritten: ts.Program;

  it('compile: the calls are typed (no `any`), and each refused call is refused', () => {
    expect(expectations.length).toBeGreaterThanOrEqual(15);
    asWritten = compile((source) => source);
    // An `@ts-expect-error` whose line compiles is itself an error (TS2578), so none may be left.
    expect(ts.getPreEmitDiagnostics(asWritten).map((diagnostic) => describeDiagnostic(diagnostic).text)).toEqual([]);
  }, 60_000);

  it('refuse each of those calls for the reason its directive names, and nothing else', () => {
    const withoutDirectives = compile(
      (source) => source.replaceAll('// @ts-expect-error', '// expected error'),
      asWritten,
    );
    const errors = ts.getPreEmitDiagnostics(withoutDirectives).map(describeDiagnostic);
    expect(errors.map(({ line, code }) => ({ line, code }))).toEqual(
      expectations.map(({ line, code }) => ({ line, code })),
    );
    for (const [index, { text: part }] of expectations.entries()) expect(errors[index].text).toContain(part);
  }, 60_000);
});

/** The type assertions of a source file (`as const` aside): each one a place where the compiler no longer checks. */
function assertionsIn(file: string): string[] {
  const source = ts.createSourceFile(file, ts.sys.readFile(file)!, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const asserted =
      ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) ? node.type.getText(source) : undefined;
    if (asserted !== undefined && asserted !== 'const') {
      found.push(
        `${path.basename(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText(source)}`,
      );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the client’s implementation', () => {
  it('asserts no type: its calls and pages are checked by the compiler, not cast to their signatures', () => {
    const sources = ts.sys
      .readDirectory(path.join(CLIENT, 'src'), ['.ts'])
      .filter((file) => !file.endsWith('schema.ts'));
    expect(sources.length).toBeGreaterThanOrEqual(4);
    expect(sources.flatMap(assertionsIn)).toEqual([]);
  });
});
