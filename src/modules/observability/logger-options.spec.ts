import { loadConfig } from '../../config/app-config';
import { httpLoggerOptions } from './logger-options';

describe('httpLoggerOptions', () => {
  const serialize = (url: string) => {
    const serializers = httpLoggerOptions(loadConfig({})).serializers as { req: (request: unknown) => { url: string } };
    return serializers.req({ id: '1', method: 'GET', url, headers: {} }).url;
  };

  it('never logs the credential of a signed file URL', () => {
    expect(serialize('/downloads/fil_1?expires=9&signature=SECRET')).toBe('/downloads/fil_1?expires=9&signature=[redacted]');
    expect(serialize('/uploads/fil_1?signature=SECRET&expires=9')).toBe('/uploads/fil_1?signature=[redacted]&expires=9');
    expect(serialize('/b/k?X-Amz-Credential=AK&X-Amz-Signature=SIG')).toBe('/b/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]');
  });

  it('keeps other query parameters', () => {
    expect(serialize('/v1/notes?limit=5&$title[startsWith]=Q3')).toBe('/v1/notes?limit=5&$title[startsWith]=Q3');
  });
});
