import { useCallback } from 'react';
import { App } from 'antd';
import { useTranslation } from '@/i18n';
import { isApiError } from './errors';

/**
 * For callers of rejected calls (SPEC §8 "rejected to the caller"): show the server's message unless the
 * client already reacted (dialog, notice with a button, silence).
 */
export function useShowError() {
  const { message } = App.useApp();
  const { t } = useTranslation();
  return useCallback(
    (error: unknown) => {
      if (isApiError(error)) {
        if (!error.handled) void message.error(error.message || t('common:errors.unknown'));
        return;
      }
      void message.error(t('common:errors.unknown'));
    },
    [message, t],
  );
}
