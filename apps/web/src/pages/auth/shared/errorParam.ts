import type { TFunction } from 'i18next';
import { errorByCode } from '@loupe/contracts';

/**
 * Text for an `?error=` the server put in a redirect (single sign-on cannot answer with an envelope). The server
 * sends a catalogue code, translated here from the shared `errors` namespace; anything else is shown as given.
 */
export function errorParamText(value: string, t: TFunction): string {
  if (!value) return '';
  const known = /^\d+$/.test(value) ? errorByCode(Number(value)) : undefined;
  return known ? t(`errors:${known.key}`) : value;
}
