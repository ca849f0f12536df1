import { afterAll, describe, expect, it } from 'vitest';
import i18n, { antLocaleOf, i18nReady, setLanguage } from './index';

/** Issue 31 item 7: the app carries English only; another language is its own chunk, loaded when shown. */
describe('language bundles', () => {
  afterAll(() => setLanguage('en'));

  it('start with English alone, then load a language with its Ant Design locale on a switch', async () => {
    await i18nReady;
    expect(i18n.hasResourceBundle('en', 'common')).toBe(true);
    expect(i18n.hasResourceBundle('de', 'common')).toBe(false);
    expect(antLocaleOf('de').locale).toBe('en');

    await setLanguage('de');
    expect(i18n.language).toBe('de');
    expect(i18n.hasResourceBundle('de', 'menu')).toBe(true);
    expect(i18n.hasResourceBundle('de', 'errors')).toBe(true);
    expect(i18n.t('menu:steps.testImage')).toBe('Testbilder');
    expect(antLocaleOf('de').locale).toBe('de');
    expect(i18n.hasResourceBundle('ru', 'common')).toBe(false);
  });
});
