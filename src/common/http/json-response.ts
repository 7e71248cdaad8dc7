import type { ServerResponse } from 'node:http';

/** A JSON answer already serialised (parts of it read as JSON text): sent as it is. */
export class SerializedJson {
  constructor(readonly text: string) {}
}

/**
 * Writes `body` as the JSON response, with its length, in one write. Every JSON answer of the
 * service (results and errors) goes out this way.
 */
export function sendJson(response: ServerResponse, status: number, body: object): void {
  const json = body instanceof SerializedJson ? body.text : JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(json));
  response.end(json);
}
