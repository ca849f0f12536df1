import type { Language } from '@loupe/contracts';
import en from '@loupe/contracts/locales/en/validation.json';
import zh from '@loupe/contracts/locales/zh/validation.json';
import de from '@loupe/contracts/locales/de/validation.json';
import ru from '@loupe/contracts/locales/ru/validation.json';

type Catalogue = { reasons: Record<string, string> };
const CATALOGUES: Record<Language, Catalogue> = { en, zh, de, ru };

/**
 * The words the server uses for a parameter problem (contracts validation.json `reasons`), so the form and
 * the server's refusal say the same thing in each language.
 */
export function reasonText(lang: Language, reason: string): string | undefined {
  return CATALOGUES[lang].reasons[reason] ?? CATALOGUES.en.reasons[reason];
}
