import { useCallback } from 'react';
import type { Notice } from '@loupe/annotator';
import { Limits } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';

/**
 * The labeling rules' messages (the editor's host.notice, the end of the list, unfinished drawings) as
 * warnings in the user's language. A repeated notice replaces the one showing instead of stacking up while a
 * key is held down.
 */
export function useNotice() {
  const { t } = useTranslation('mark');
  const { message } = useNotify();
  return useCallback(
    (notice: Notice, values?: Record<string, string | number>) =>
      void message.warning({ content: t(`notices.${notice}`, values), key: `mark-${notice}`, duration: Limits.warningDurationMs / 1000 }),
    [message, t],
  );
}
