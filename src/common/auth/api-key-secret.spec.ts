import { createHash } from 'node:crypto';
import { generateApiKeySecret, hashSecret, looksLikeApiKey, secretsEqual } from './api-key-secret';

describe('API key secrets', () => {
  it('are sk_ and 43 base62 characters', () => {
    for (let i = 0; i < 100; i += 1) expect(generateApiKeySecret()).toMatch(/^sk_[0-9A-Za-z]{43}$/);
  });

  it('are random: distinct, drawing on the whole base62 alphabet', () => {
    const secrets = Array.from({ length: 1000 }, generateApiKeySecret);
    expect(new Set(secrets).size).toBe(1000);
    const symbols = new Set(secrets.map((secret) => secret.slice(3)).join(''));
    expect(symbols.size).toBe(62);
  });

  it('are recognised by looksLikeApiKey', () => {
    expect(looksLikeApiKey(generateApiKeySecret())).toBe(true);
    expect(looksLikeApiKey(`sk_${'a'.repeat(40)}`)).toBe(true);
  });

  it.each([
    ['39 characters', `sk_${'a'.repeat(39)}`],
    ['201 characters', `sk_${'a'.repeat(201)}`],
    ['another prefix', `pk_${'a'.repeat(43)}`],
    ['no prefix', 'a'.repeat(46)],
    ['a non-base62 character', `sk_${'a'.repeat(42)}-`],
    ['a space', `sk_${'a'.repeat(42)} `],
    ['nothing', ''],
  ])('are not confused with %s', (_case, value) => {
    expect(looksLikeApiKey(value)).toBe(false);
  });

  it('are stored as their SHA-256, in hex', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const secret = generateApiKeySecret();
    expect(hashSecret(secret)).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(hashSecret(secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(secret)).not.toContain(secret.slice(3));
  });

  it('compare equal only to themselves, whatever the lengths', () => {
    const secret = generateApiKeySecret();
    expect(secretsEqual(secret, secret)).toBe(true);
    expect(secretsEqual(secret, `${secret}x`)).toBe(false);
    expect(secretsEqual(secret, secret.slice(0, -1))).toBe(false);
    expect(secretsEqual('', secret)).toBe(false);
    expect(secretsEqual('', '')).toBe(true);
  });
});
