import { thrownApiError } from '../../../test/support/errors';
import { decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from './cursor';

const refusal = (text: string, param?: string) => thrownApiError(() => decodeCursor(text, param));

describe('encodeCursor and decodeCursor', () => {
  it('give back the payload, through text a query string carries as it is', () => {
    const payload = {
      position: ['2026-03-01T12:00:00.123456+00:00', 'evt_1'],
      filters: [['$title', 'Ünïcødé & = ? /']],
    };
    const cursor = encodeCursor(payload);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(payload);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'not a cursor!'],
    ['base64 with padding', `${encodeCursor({ a: 1 })}==`],
    ['base64 of the standard alphabet', Buffer.from('{"a":"??>>"}').toString('base64')],
    ['a character too many', `${encodeCursor({ a: 1 })}A`],
    ['not UTF-8', Buffer.from([0xff, 0xfe, 0x7b]).toString('base64url')],
    ['not JSON', Buffer.from('{a: 1}').toString('base64url')],
    ['longer than the bound, however well formed', encodeCursor({ a: 'x'.repeat(MAX_CURSOR_LENGTH) })],
  ])('refuses a cursor %s with 400 invalid_parameter naming the parameter', (_case, text) => {
    const error = refusal(text, 'after');
    expect([error.status, error.code, error.param]).toEqual([400, 'invalid_parameter', 'after']);
  });

  it('names `cursor` by default', () => {
    expect(refusal('%%').param).toBe('cursor');
  });

  it('reads a cursor of the bound, and refuses one character more before decoding it', () => {
    // Base64 writes 4 characters for 3 bytes; `{"a":""}` is 8 bytes.
    const payload = { a: 'x'.repeat((MAX_CURSOR_LENGTH / 4) * 3 - 8) };
    const fits = encodeCursor(payload);
    expect(fits.length).toBe(MAX_CURSOR_LENGTH);
    expect(decodeCursor(fits)).toEqual(payload);
    const spy = jest.spyOn(JSON, 'parse');
    try {
      expect(refusal('A'.repeat(MAX_CURSOR_LENGTH + 1)).message).toMatch(/longer than/);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
