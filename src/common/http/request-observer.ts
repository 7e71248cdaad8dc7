import type { Request, Response } from 'express';

/** What every request goes through before anything answers it (request id, access log, metrics). */
export type RequestObserver = (request: Request, response: Response) => void;
