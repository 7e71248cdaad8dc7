import { ApiError } from '../common/errors/api-error';

/**
 * The failures of a write's inputs, kept by place; the first (lowest place) one is an atomic
 * write's answer. A batch's carry the input's place in their param (`inputs[3].fields.$email`); a
 * single write's are its request's, as they were thrown.
 */
export class Failures {
  private readonly byIndex = new Map<number, ApiError>();

  constructor(private readonly placed: boolean) {}

  add(index: number, error: ApiError): void {
    if (!this.byIndex.has(index)) this.byIndex.set(index, this.placed ? atInput(index, error) : error);
  }

  has(index: number): boolean {
    return this.byIndex.has(index);
  }

  get(index: number): ApiError | undefined {
    return this.byIndex.get(index);
  }

  /** Runs `read` and keeps what it throws as the input's failure: the answer, else undefined. */
  catch<T>(index: number, read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.add(index, error as ApiError);
      return undefined;
    }
  }

  first(): ApiError | undefined {
    const first = Math.min(...this.byIndex.keys());
    return this.byIndex.get(first);
  }

  get size(): number {
    return this.byIndex.size;
  }
}

/** An error as a batch input's: its param prefixed with the input's place. */
function atInput(index: number, error: ApiError): ApiError {
  const place = `inputs[${index}]`;
  return new ApiError(
    error.status,
    error.code,
    error.message,
    error.param === undefined ? place : `${place}.${error.param}`,
    error.headers,
  );
}
