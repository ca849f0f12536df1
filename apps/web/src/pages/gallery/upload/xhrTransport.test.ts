import { describe, expect, it } from 'vitest';
import { outcomesOf } from './xhrTransport';

describe('per-file outcomes of an upload answer', () => {
  it('reads results by position, keeping the server reason of a refusal', () => {
    const data = {
      accepted: 1,
      refused: 1,
      results: [
        { name: 'a.png', status: 'accepted' as const, imageId: 1 },
        { name: 'a.png', status: 'refused' as const, code: 30014, message: 'This image is already in the model.' },
      ],
    };
    // Two parts with the same name: only the position tells them apart.
    expect(outcomesOf(data, ['a.png', 'a.png'])).toEqual([
      { ok: true },
      { ok: false, reason: 'This image is already in the model.' },
    ]);
  });

  it('falls back to names when the server answered for fewer parts, and flags the unanswered one', () => {
    const data = { accepted: 1, refused: 0, results: [{ name: 'b.png', status: 'accepted' as const, imageId: 2 }] };
    expect(outcomesOf(data, ['a.png', 'b.png'])).toEqual([
      { ok: false, reason: 'The server did not report on this file.' },
      { ok: true },
    ]);
  });
});
