import { generateApiKeySecret } from '../../common/auth/api-key-secret';
import { SecretRedactor } from './secret-redaction';

describe('SecretRedactor', () => {
  const key = generateApiKeySecret();

  it('replaces every API-key-shaped string, wherever it sits in a line', () => {
    const other = generateApiKeySecret();
    const line = JSON.stringify({ url: `/v1/notes/${key}?api_key=${other}`, headers: { 'x-thing': `a${key}b` } });
    const redacted = new SecretRedactor(undefined).redact(line);
    expect(redacted).not.toContain(key.slice(3));
    expect(redacted).not.toContain(other.slice(3));
    expect(redacted).toBe(
      JSON.stringify({ url: '/v1/notes/[redacted]?api_key=[redacted]', headers: { 'x-thing': 'a[redacted]' } }),
    );
  });

  it('leaves ids, short sk_ strings and other text alone', () => {
    const line = JSON.stringify({
      url: '/v1/tasks/task_01JD6Y3Z8Q0N5V4W7X2C9B1A3E',
      note: `sk_${'a'.repeat(39)}`,
      msg: 'ok',
    });
    expect(new SecretRedactor('an-admin-token-of-32-characters!').redact(line)).toBe(line);
  });

  it.each([
    ['plain', 'plain-admin-token-0123456789'],
    ['with characters JSON escapes', 'tok"en\\with\\quotes-0123456789'],
    ['with characters URLs encode', 'tok en/with?url&chars=0123456789+'],
  ])('replaces the admin token (%s) as written, JSON-escaped and percent-encoded', (_case, token) => {
    const line = JSON.stringify({ header: token, url: `/admin/v1/x?t=${encodeURIComponent(token)}` });
    const redacted = new SecretRedactor(token).redact(line);
    expect(redacted).toBe(JSON.stringify({ header: '[redacted]', url: '/admin/v1/x?t=[redacted]' }));
  });

  it('tells whether a value contains a secret, statelessly across calls', () => {
    const secrets = new SecretRedactor('plain-admin-token-0123456789');
    for (let i = 0; i < 3; i += 1) {
      expect(secrets.contains(`id-${key}`)).toBe(true);
      expect(secrets.contains('xplain-admin-token-0123456789')).toBe(true);
      expect(secrets.contains('req-0123456789')).toBe(false);
    }
  });
});
