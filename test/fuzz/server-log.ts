/**
 * The service's error log, read while the fuzz test runs, so that a report of a 500 says what
 * broke inside (the error the exception filter logged) and 500s are told apart by their cause.
 * Start it before createTestApp: pino writes through `process.stdout.write` only when that has
 * been replaced by the time the logger is built. Requests are sent one at a time, so the lines
 * written while a request ran are that request's.
 */
export class ServerLog {
  private readonly lines: string[] = [];
  private readonly spy: jest.SpyInstance;

  constructor() {
    this.spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      this.lines.push(...text.split('\n').filter((line) => line.startsWith('{')));
      return true;
    });
  }

  /**
   * The first unhandled error logged since the last call; forgets the lines read, so that a long
   * run keeps none.
   */
  takeError(): ServerError | undefined {
    const lines = this.lines.splice(0);
    for (const line of lines) {
      let record: { err?: { type?: string; message?: string; stack?: string } };
      try {
        record = JSON.parse(line) as typeof record;
      } catch {
        continue;
      }
      if (!record.err) continue;
      const frames = (record.err.stack ?? '')
        .split('\n')
        .map((frame) => frame.trim())
        .filter((frame) => frame.startsWith('at '));
      const ours = frames.find((frame) => frame.includes('/src/') && !frame.includes('/node_modules/'));
      const theirs = frames.find((frame) => frame.includes('/node_modules/'));
      return {
        cause: `${record.err.type ?? 'Error'}: ${record.err.message ?? ''}`,
        function: ours ? /^at (?:async )?([^\s(]+) \(/.exec(ours)?.[1] : undefined,
        frame: (ours ?? theirs)?.replace(/^at /, '').replace(/(^|\()\/\S*?\/(src|node_modules)\//, '$1$2/'),
      };
    }
    return undefined;
  }

  restore(): void {
    this.spy.mockRestore();
  }
}

/** An unhandled error as the service logged it. */
export interface ServerError {
  /** `Type: message`. */
  cause: string;
  /** The innermost function of the service's own code on the stack, if any. */
  function?: string;
  /** That frame (else the innermost of a dependency), paths cut to the project. */
  frame?: string;
}
