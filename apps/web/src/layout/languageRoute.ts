import { DEFAULT_LANGUAGE, type Language } from '@loupe/contracts';
import { isLanguage } from '@/i18n';

export const LOADING_PAGE = '/loading-page';

interface Place {
  pathname: string;
  search: string;
  hash: string;
}

/** A language change passes through /loading-page carrying the current path, query and hash (SPEC §2). */
export function languageSwitchUrl(place: Place, lang: Language): string {
  const params = new URLSearchParams({ lang, path: place.pathname, query: place.search, hash: place.hash });
  return `${LOADING_PAGE}?${params.toString()}`;
}

/** Where /loading-page returns to; only same-site paths, so the page cannot be used as an open redirect. */
export function loadingPageReturn(search: string): { lang: Language | null; to: string } {
  const params = new URLSearchParams(search);
  const lang = params.get('lang');
  const path = params.get('path') ?? '';
  const sameSite = path.startsWith('/') && !path.startsWith('//') && !path.startsWith(LOADING_PAGE);
  const query = params.get('query') ?? '';
  const hash = params.get('hash') ?? '';
  const to = sameSite
    ? `${path}${query && !query.startsWith('?') ? '?' : ''}${query}${hash && !hash.startsWith('#') ? '#' : ''}${hash}`
    : '/';
  return { lang: isLanguage(lang) ? lang : null, to };
}

export const LANGUAGE_NAMES: Record<Language, string> = {
  en: 'English',
  zh: '中文',
  de: 'Deutsch',
  ru: 'Русский',
};
export const FALLBACK_LANGUAGE = DEFAULT_LANGUAGE;
