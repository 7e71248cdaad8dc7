import type { Response } from 'supertest';

/** The request a supertest response answered (typed loosely by supertest). */
export function requestOf(response: Response): { method: string; path: string } {
  return (response as unknown as { req: { method: string; path: string } }).req;
}
