import { useCallback } from 'react';
import { useTranslation } from '@/i18n';
import type { Refusal, RefusalReason } from './precheck';

/** Pre-check refusals read exactly like the server's: the same `errors` catalogue messages. */
const KEYS: Record<RefusalReason, string> = {
  type: 'errors:onlyImageTypes',
  size: 'errors:imageTooLarge',
  empty: 'errors:fileCheckFailed',
  nested: 'errors:nestedFolder',
  notInFolder: 'errors:notInFolder',
};

export function useRefusalText() {
  const { t } = useTranslation();
  return useCallback((r: Refusal) => t(KEYS[r.reason], { path: r.name }), [t]);
}
