import { loggableUrl } from './request-logging';

describe('loggableUrl', () => {
  it('never logs the credential of a signed file URL', () => {
    expect(loggableUrl('/downloads/fil_1?expires=9&signature=SECRET')).toBe(
      '/downloads/fil_1?expires=9&signature=[redacted]',
    );
    expect(loggableUrl('/uploads/fil_1?signature=SECRET&expires=9')).toBe(
      '/uploads/fil_1?signature=[redacted]&expires=9',
    );
    expect(loggableUrl('/b/k?X-Amz-Credential=AK&X-Amz-Signature=SIG')).toBe(
      '/b/k?X-Amz-Credential=[redacted]&X-Amz-Signature=[redacted]',
    );
  });

  it('keeps other query parameters', () => {
    expect(loggableUrl('/v1/notes?limit=5&$title[startsWith]=Q3')).toBe('/v1/notes?limit=5&$title[startsWith]=Q3');
  });
});
