import { ApiError, boundedEcho, MAX_ECHOED_RUN, MAX_MESSAGE_LENGTH, MAX_PARAM_LENGTH } from './api-error';

describe('bounded error echoes', () => {
  it('leaves an ordinary message as it is', () => {
    const message = 'fields.$title must be at most 10000 characters';
    expect(new ApiError(422, 'invalid_value', message, 'fields.$title').toBody().error).toMatchObject({
      message,
      param: 'fields.$title',
    });
  });

  it('cuts a long input inside a message to a prefix and keeps the words around it', () => {
    const id = `acc_${'x'.repeat(70_000)}`;
    const error = new ApiError(422, 'relationship_entity_missing', `No account ${id} in this workspace`, 'relationships.$account');
    expect(error.message).toBe(`No account ${id.slice(0, MAX_ECHOED_RUN)}… in this workspace`);
    expect(error.param).toBe('relationships.$account');
  });

  it('bounds a message of many short words and a long param', () => {
    const error = new ApiError(400, 'unknown_field', 'word '.repeat(50_000), `fields.${'k'.repeat(70_000)}`);
    expect(error.message.length).toBe(MAX_MESSAGE_LENGTH + 1);
    expect(error.message.endsWith('…')).toBe(true);
    expect(error.param!.length).toBeLessThanOrEqual(MAX_PARAM_LENGTH + 1);
    expect(error.param!.startsWith('fields.kkk')).toBe(true);
  });

  it('never cuts between the halves of a surrogate pair', () => {
    const run = `${'a'.repeat(MAX_ECHOED_RUN - 1)}😀${'b'.repeat(50)}`;
    const cut = boundedEcho(run, MAX_MESSAGE_LENGTH);
    expect(cut).toBe(`${'a'.repeat(MAX_ECHOED_RUN - 1)}…`);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('takes linear time on a megabyte of text', () => {
    const text = `${'y'.repeat(99)} `.repeat(10_000) + 'z'.repeat(1_000_000);
    const started = process.cpuUsage();
    expect(boundedEcho(text, MAX_MESSAGE_LENGTH).length).toBe(MAX_MESSAGE_LENGTH + 1);
    const used = process.cpuUsage(started);
    expect(used.user + used.system).toBeLessThan(200_000);
  });
});
