/**
 * Captures what the service writes to stdout, where pino logs. Start it before createTestApp:
 * pino writes through `process.stdout.write` when that has been replaced at the time the logger is
 * built (else it writes to file descriptor 1 directly, out of reach). Nothing reaches the terminal.
 */
export class StdoutCapture {
  private readonly chunks: string[] = [];
  private readonly spy: jest.SpyInstance;

  constructor() {
    this.spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  }

  get text(): string {
    return this.chunks.join('');
  }

  /** The JSON log lines written so far (other output is ignored). */
  get records(): Record<string, unknown>[] {
    return this.text
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  restore(): void {
    this.spy.mockRestore();
  }
}
