import { useCallback } from 'react';
import { allActions } from '@loupe/annotator';
import { useTranslation } from '@/i18n';

const byName = new Map(allActions.map((a) => [a.name, a]));

/**
 * Tooltip text of a command: its label and shortcut as the editor's action declares them, so a button never
 * advertises a key the editor does not bind.
 */
export function useActionHint() {
  const { t } = useTranslation('mark');
  return useCallback(
    (name: string) => {
      const action = byName.get(name);
      if (!action) return name;
      const label = t(action.labelKey);
      return action.shortcut ? `${label} (${action.shortcut})` : label;
    },
    [t],
  );
}
