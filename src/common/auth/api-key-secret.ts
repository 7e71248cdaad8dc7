import { hash, randomInt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 43; // ~256 bits of entropy

/** A new API key: `sk_` then 43 base62 characters from the CSPRNG (docs/api.md §6). */
export function generateApiKeySecret(): string {
  let secret = 'sk_';
  for (let i = 0; i < SECRET_LENGTH; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return secret;
}

export function looksLikeApiKey(value: string): boolean {
  return /^sk_[0-9A-Za-z]{40,200}$/.test(value);
}

/** The only form in which a key is stored or compared (one-shot: half the CPU of a Hash object, on every request). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time comparison of two secrets of any length. */
export function secretsEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(hashSecret(presented), 'hex'), Buffer.from(hashSecret(expected), 'hex'));
}
