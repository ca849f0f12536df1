import { useEffect, useState } from 'react';
import { refreshProjectStatus } from '@/stores/project';

/**
 * Before the project lock sends a navigation to the running step, the stored status is checked with the server
 * once for that navigation (`navigationKey`, the location's key): a test or training that ended while nothing
 * was watching it must not send "Test images" to /test (issue 31). True once checked; the guard then decides
 * again with the fresh status.
 */
export function useLockChecked(locked: boolean, navigationKey: string): boolean {
  const [checked, setChecked] = useState<string | null>(null);
  useEffect(() => {
    if (!locked || checked === navigationKey) return;
    let current = true;
    void refreshProjectStatus().finally(() => {
      if (current) setChecked(navigationKey);
    });
    return () => {
      current = false;
    };
  }, [locked, navigationKey, checked]);
  return !locked || checked === navigationKey;
}
