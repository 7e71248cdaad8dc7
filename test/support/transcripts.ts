import { createHash } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { v1Headers } from './test-app';

/** Uploads `content` through the files API (create, PUT to the signed URL, complete); returns the file id. */
export async function uploadFile(
  http: TestAgent,
  key: string,
  options: { content?: string; mimeType?: string; purpose?: string; complete?: boolean } = {},
): Promise<string> {
  const content = Buffer.from(options.content ?? 'WEBVTT\n\n00:00.000 --> 00:01.000\nHello\n');
  const mimeType = options.mimeType ?? 'text/vtt';
  const created = await http
    .post('/v1/files')
    .set(v1Headers(key))
    .send({
      filename: 'call.vtt',
      mimeType,
      sizeBytes: content.length,
      purpose: options.purpose ?? 'meeting_transcript',
    });
  if (created.status !== 200) throw new Error(`create file: ${created.status} ${JSON.stringify(created.body)}`);
  const url = new URL(created.body.uploadUrl as string);
  const put = await http
    .put(`${url.pathname}${url.search}`)
    .set(created.body.uploadHeaders as Record<string, string>)
    .send(content);
  if (put.status >= 300) throw new Error(`upload: ${put.status} ${JSON.stringify(put.body)}`);
  if (options.complete !== false) {
    const md5 = createHash('md5').update(content).digest('hex');
    const done = await http.post(`/v1/files/${created.body.id}/complete`).set(v1Headers(key)).send({ md5 });
    if (done.status !== 200) throw new Error(`complete: ${done.status} ${JSON.stringify(done.body)}`);
  }
  return created.body.id as string;
}
