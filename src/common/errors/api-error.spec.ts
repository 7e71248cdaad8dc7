import { ApiError, boundedEcho, MAX_ECHOED_RUN, MAX_MESSAGE_LENGTH, MAX_PARAM_LENGTH } from './api-error';
import { costGrowth } from '../../../test/support/cost-growth';

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
    const error = new ApiError(
      422,
      'relationship_entity_missing',
      `No account ${id} in this workspace`,
      'relationships.$account',
    );
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

  it('takes time linear in the length of the text', async () => {
    // Words and one long unbroken run, as in a hostile message: half of each.
    const text = (length: number) => `${'y'.repeat(99)} `.repeat(length / 200) + 'z'.repeat(length / 2);
    const megabyte = text(1_000_000);
    expect(boundedEcho(megabyte, MAX_MESSAGE_LENGTH).length).toBe(MAX_MESSAGE_LENGTH + 1);
    // Four times the text, about four times the time (a quadratic cut would take 16 times as long).
    expect(
      await costGrowth((input: string) => boundedEcho(input, MAX_MESSAGE_LENGTH), text(250_000), megabyte),
    ).toBeLessThan(8);
  });
});
