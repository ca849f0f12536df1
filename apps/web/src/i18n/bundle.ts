import type { ResourceLanguage } from 'i18next';
import type { Locale } from 'antd/es/locale';

type Json = Record<string, unknown>;

/** One language's texts (every namespace, the server's errors included) and its Ant Design locale. */
export interface LanguageBundle {
  resources: ResourceLanguage;
  antd: Locale;
}

/** Parse a glob key like '../locales/de/menu.json' into its language and namespace. */
export function parseLocalePath(path: string): { lang: string; ns: string } | null {
  const match = /locales\/([^/]+)\/([^/]+)\.json$/.exec(path);
  return match ? { lang: match[1]!, ns: match[2]! } : null;
}

/** A language's bundle from its locale files (keyed by glob path), its server errors and its Ant Design locale. */
export function makeBundle(files: Record<string, Json>, errors: Json, antd: Locale): LanguageBundle {
  const resources: ResourceLanguage = { errors };
  for (const [path, content] of Object.entries(files)) {
    const parsed = parseLocalePath(path);
    if (parsed) resources[parsed.ns] = content;
  }
  return { resources, antd };
}
