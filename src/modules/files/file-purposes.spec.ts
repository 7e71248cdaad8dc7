import { ApiError } from '../../common/errors/api-error';
import { checkPurpose, MIB, MIME_TYPE_PATTERN } from './file-purposes';

function refusal(run: () => void): [number, string, string | undefined] | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return [error.status, error.code, error.param];
    throw error;
  }
  return undefined;
}

describe('MIME_TYPE_PATTERN', () => {
  it.each([
    'text/plain',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    'TEXT/VTT',
    'application/x-subrip',
    'image/svg+xml',
  ])('accepts %s', (type) => expect(MIME_TYPE_PATTERN.test(type)).toBe(true));
  it.each(['text', 'text/', '/plain', 'text/plain; charset=utf-8', 'text /plain', 'text/plain/x', '-text/plain', ''])(
    'refuses %p',
    (type) => expect(MIME_TYPE_PATTERN.test(type)).toBe(false),
  );
});

describe('checkPurpose', () => {
  it('lets anything through without a purpose (the DTO bounds the size)', () => {
    expect(
      refusal(() => checkPurpose(undefined, { mimeType: 'video/mp4', sizeBytes: 512 * MIB }, 'member')),
    ).toBeUndefined();
  });

  it('matches type/* on the top-level type only, case-insensitively', () => {
    const check = (mimeType: string) =>
      refusal(() => checkPurpose('knowledge_user', { mimeType, sizeBytes: 1 }, 'member'));
    expect(check('Text/CSV')).toBeUndefined();
    expect(check('textual/plain')).toEqual([422, 'file_constraint', 'mimeType']);
  });

  it('checks the admin rule before the constraints', () => {
    expect(
      refusal(() => checkPurpose('knowledge_workspace', { mimeType: 'video/mp4', sizeBytes: 1 }, 'member')),
    ).toEqual([403, 'not_permitted', 'purpose']);
    expect(
      refusal(() => checkPurpose('knowledge_workspace', { mimeType: 'text/plain', sizeBytes: 1 }, 'admin')),
    ).toBeUndefined();
  });

  it.each([
    ['meeting_transcript', 50 * MIB],
    ['knowledge_user', 100 * MIB],
  ] as const)('bounds %s at %d bytes', (purpose, max) => {
    expect(refusal(() => checkPurpose(purpose, { mimeType: 'text/plain', sizeBytes: max }, 'member'))).toBeUndefined();
    expect(refusal(() => checkPurpose(purpose, { mimeType: 'text/plain', sizeBytes: max + 1 }, 'member'))).toEqual([
      422,
      'file_constraint',
      'sizeBytes',
    ]);
  });
});
