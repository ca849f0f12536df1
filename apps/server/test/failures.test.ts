import { failure } from '@loupe/contracts';
import { describe, expect, it } from 'vitest';
import { failureText, withFailuresIn } from '../src/i18n.js';

describe('failure reasons in the user language', () => {
  it('explain the code and keep the engine’s own detail', () => {
    expect(failureText('de', failure('bad_image', 'a.jpg: cannot decode'))).toBe('Ein Bild konnte nicht gelesen werden: a.jpg: cannot decode');
    expect(failureText('zh', failure('stopped'))).toBe('在完成前已停止。');
    expect(failureText('ru', failure('serverStoppedPack'))).toBe('Сервер остановился во время сборки пакета; экспортируйте снова.');
  });

  it('leave reasons stored without a known code, and missing ones, as they are', () => {
    expect(failureText('de', 'the test process was killed')).toBe('the test process was killed');
    expect(failureText('de', '[unknown_code] x')).toBe('[unknown_code] x');
    expect(failureText('de', null)).toBeNull();
  });

  it('rewrite the error of one answer or of each item of a list, nothing else', () => {
    const one = { id: 1, status: 'failed', error: failure('processKilled') };
    expect(withFailuresIn(one, 'en')).toEqual({ id: 1, status: 'failed', error: 'The engine process was killed (out of memory or stopped from outside).' });
    expect(one.error).toBe('[processKilled]');
    const list = { items: [one, { id: 2, status: 'succeeded', error: null }], total: 2 };
    expect(withFailuresIn(list, 'zh').items.map((i) => i.error)).toEqual(['引擎进程被终止（内存不足或被外部停止）。', null]);
    expect(withFailuresIn({ packStatus: 'none' }, 'de')).toEqual({ packStatus: 'none' });
  });
});
