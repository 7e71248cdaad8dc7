import type { ServerResponse } from 'node:http';

/**
 * Writes `body` as the JSON response, with its length, in one write. Every JSON answer of the
 * service (results and errors) goes out this way.
 */
export function sendJson(response: ServerResponse, status: number, body: object): void {
  const json = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(json));
  response.end(json);
}
