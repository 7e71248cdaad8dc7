import { publicErrorProblems } from '../support/public-error-codes';
import type { FuzzWorld } from './fuzz-world';
import type { RawResponse } from './raw-http';
import type { ServerError } from './server-log';
import { Caller, FuzzRequest, ownWorkspace } from './request-arbitrary';

export type ProblemKind =
  'no-answer' | 'server-error' | 'error-body' | 'slow' | 'leak' | 'prototype-key' | 'refused-but-wrote';

export interface Problem {
  kind: ProblemKind;
  detail: string;
  /** For a 5xx, what the service logged as its cause. */
  serverError?: ServerError;
}

/**
 * Strings the caller must never receive: the other workspace's; both workspaces' without
 * credentials or with the probes' workspace's key; none for the operator. Bad credentials are mostly workspace A's key misspelt
 * (`bearer sk_…` may rightly pass, the scheme being case-insensitive), so they may see A's data.
 */
function forbiddenTokens(caller: Caller, world: FuzzWorld): string[] {
  if (caller === 'admin') return [];
  if (caller === 'anonymous' || caller === 'P') return [...world.A.privateTokens, ...world.B.privateTokens];
  return ownWorkspace(caller) === 'A' ? world.B.privateTokens : world.A.privateTokens;
}

/**
 * What the contract promises of every answer, whatever was asked: an answer, no 5xx, the public
 * error body on every 4xx, nothing of another workspace, and an answer within `boundMs`. A 4xx the
 * contract allows is never a problem: only its shape and code are checked, not whether the request
 * deserved it, but for a prototype-key probe, which only its key makes wrong: every body refuses a
 * member named like Object.prototype's with 400 (`unknown_field`, `unknown_relationship`,
 * `invalid_operation` or `invalid_type`, as the place says), and a refused body changes nothing.
 */
/**
 * Whether an answer refuses a probe at `at` with 400: the whole answer, or, for a probe inside one
 * input of a batch answered per item (207), that input's result (the others may succeed).
 */
function refusesProbe(at: string, response: RawResponse): boolean {
  if (response.status === 400) return true;
  const input = /^inputs\.(\d+)(\.|$)/.exec(at);
  const results = (response.json as { results?: { status?: unknown }[] } | undefined)?.results;
  return input !== null && response.status === 207 && results?.[Number(input[1])]?.status === 400;
}

export function responseProblems(
  request: FuzzRequest,
  response: RawResponse,
  world: FuzzWorld,
  boundMs: number,
  /** What the service logged as the cause, when it logged an unhandled error. */
  serverError?: ServerError,
  /** For a probe: the tables whose rows of the probes' workspace changed while it was answered. */
  changed: string[] = [],
): Problem[] {
  if (response.failure) return [{ kind: 'no-answer', detail: response.failure }];
  const problems: Problem[] = [];
  const error = response.json as { error?: { code?: unknown } } | undefined;
  if (response.status >= 500) {
    const code = JSON.stringify(error?.error?.code ?? response.text.slice(0, 200));
    const cause = serverError ? ` — ${serverError.cause}${serverError.frame ? ` (at ${serverError.frame})` : ''}` : '';
    problems.push({ kind: 'server-error', detail: `${response.status} ${code}${cause}`, serverError });
  } else if (response.status >= 400) {
    const shape = publicErrorProblems(response.status, response.headers['content-type'], response.json);
    if (shape.length > 0) problems.push({ kind: 'error-body', detail: `${response.status}: ${shape.join('; ')}` });
  }
  if (request.probe && !refusesProbe(request.probe.at, response)) {
    problems.push({
      kind: 'prototype-key',
      detail: `${request.probe.key} at ${request.probe.at} answered ${response.status}, not 400`,
    });
  }
  if (request.probe && response.status >= 400 && changed.length > 0) {
    problems.push({
      kind: 'refused-but-wrote',
      detail: `answered ${response.status}, yet changed rows of ${changed.join(', ')}`,
    });
  }
  if (response.elapsedMs > boundMs) {
    problems.push({
      kind: 'slow',
      detail: `answered in ${Math.round(response.elapsedMs)} ms (the faster of two tries), more than ${boundMs} ms`,
    });
  }
  // What the request itself carried may come back (an error echoing an id the caller sent is no leak).
  const sent = [request.target, ...Object.values(request.headers), request.body?.text ?? ''].join('\n');
  const received = `${response.text}\n${JSON.stringify(response.headers)}`;
  const leaked = forbiddenTokens(request.caller, world).filter(
    (token) => received.includes(token) && !sent.includes(token),
  );
  if (leaked.length > 0)
    problems.push({
      kind: 'leak',
      detail: `the answer holds another workspace's ${leaked.map((token) => JSON.stringify(token)).join(', ')}`,
    });
  return problems;
}
