import { ApiError } from '../errors/api-error';

/**
 * The longest cursor read, in characters. A cursor is a position and what it was read with; one
 * this long is already past any the service hands out (see page-cursor.ts), and nothing longer is
 * decoded or parsed.
 */
export const MAX_CURSOR_LENGTH = 8192;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * An opaque cursor: `payload` as JSON, in UTF-8, base64url-encoded without padding (RFC 4648 §5),
 * so that it travels in a query string as it is. What the payload holds is the caller's.
 */
export function encodeCursor(payload: object): string {
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

/**
 * The payload of a cursor that encodeCursor made, not yet checked: its caller checks the shape.
 * Text that no encodeCursor makes (longer than MAX_CURSOR_LENGTH, not base64url, not UTF-8, not
 * JSON) is 400 `invalid_parameter` naming `param`, never an exception of another kind.
 */
export function decodeCursor(text: string, param = 'cursor'): unknown {
  const refused = (why: string) =>
    ApiError.invalidParameter(param, `${param} is not a cursor this service gave: ${why}`);
  if (text.length > MAX_CURSOR_LENGTH) throw refused(`longer than ${MAX_CURSOR_LENGTH} characters`);
  const bytes = BASE64URL.test(text) ? Buffer.from(text, 'base64url') : undefined;
  // Buffer skips what it cannot read (a stray last character): only text that re-encodes the same is base64url.
  if (!bytes || bytes.toString('base64url') !== text) throw refused('not base64url');
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw refused('not JSON');
  }
}
