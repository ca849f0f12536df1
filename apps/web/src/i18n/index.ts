import i18n, { type BackendModule } from 'i18next';
import { initReactI18next, useTranslation } from 'react-i18next';
import type { Locale } from 'antd/es/locale';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@loupe/contracts';
import type { LanguageBundle } from './bundle';
import en from './lang/en';

/** Where the user's language choice is kept between visits (SPEC §1: local storage, English by default). */
export const LANGUAGE_STORAGE_KEY = 'language';

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

export function storedLanguage(): Language {
  try {
    const saved = globalThis.localStorage?.getItem(LANGUAGE_STORAGE_KEY);
    return isLanguage(saved) ? saved : DEFAULT_LANGUAGE;
  } catch {
    return DEFAULT_LANGUAGE;
  }
}

// English is the default and the fallback, so it comes with the app; every other language is a chunk of its own,
// loaded when it is shown (at start for a saved choice, or on a switch), so a visit never loads all four.
const loaders: Record<Language, () => Promise<LanguageBundle>> = {
  en: () => Promise.resolve(en),
  de: () => import('./lang/de').then((m) => m.default),
  zh: () => import('./lang/zh').then((m) => m.default),
  ru: () => import('./lang/ru').then((m) => m.default),
};
const bundles = new Map<Language, LanguageBundle>([[DEFAULT_LANGUAGE, en]]);
const pending = new Map<Language, Promise<LanguageBundle>>();

/** The bundle of a language, loaded once. */
export function loadLanguage(lang: Language): Promise<LanguageBundle> {
  const done = bundles.get(lang);
  if (done) return Promise.resolve(done);
  let loading = pending.get(lang);
  if (!loading) {
    loading = loaders[lang]().then((bundle) => {
      bundles.set(lang, bundle);
      return bundle;
    });
    // A failed load (the network dropped) may be tried again by the next switch.
    loading.catch(() => pending.delete(lang));
    pending.set(lang, loading);
  }
  return loading;
}

/** The Ant Design locale of a loaded language (English until the language's bundle has arrived). */
export function antLocaleOf(language: string): Locale {
  return (isLanguage(language) ? bundles.get(language)?.antd : undefined) ?? en.antd;
}

/** i18next reads a language's namespaces from its bundle: changeLanguage resolves once the texts are there. */
const bundleBackend: BackendModule = {
  type: 'backend',
  init: () => undefined,
  read: (language, namespace, callback) => {
    if (!isLanguage(language)) return callback(null, {});
    loadLanguage(language).then(
      (bundle) => callback(null, bundle.resources[namespace] ?? {}),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  },
};

/** Resolves when the saved language's texts are loaded: the app renders after it, so no English flashes first. */
export const i18nReady: Promise<unknown> = i18n
  .use(bundleBackend)
  .use(initReactI18next)
  .init({
    resources: { [DEFAULT_LANGUAGE]: en.resources },
    partialBundledLanguages: true,
    lng: storedLanguage(),
    fallbackLng: DEFAULT_LANGUAGE,
    supportedLngs: [...LANGUAGES],
    ns: Object.keys(en.resources),
    defaultNS: 'common',
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  })
  .catch(() => undefined);

if (typeof document !== 'undefined') document.documentElement.lang = i18n.language;

/** The language every call sends in the Language header. */
export function currentLanguage(): Language {
  return isLanguage(i18n.language) ? i18n.language : DEFAULT_LANGUAGE;
}

/** Switch language and remember it; the Ant Design locale follows via the root provider. */
export async function setLanguage(lang: Language): Promise<void> {
  try {
    globalThis.localStorage?.setItem(LANGUAGE_STORAGE_KEY, lang);
  } catch {
    // Private mode without storage: the choice lasts for this page only.
  }
  await i18n.changeLanguage(lang);
  if (typeof document !== 'undefined') document.documentElement.lang = lang;
}

export { useTranslation };
export default i18n;
