import { useEffect } from 'react';
import { isLockedStatus, refreshProjectStatus, useProject } from '@/stores/project';

/** How often a locked project's status is asked for while no page of its run is open. */
export const STATUS_WATCH_MS = 5000;

/**
 * While the open project is locked (testing, training), its status is re-read from the server every few seconds,
 * so the sidebar's menus unlock when the run ends even if the page that started it is closed (issue 31).
 */
export function useProjectStatusWatch(intervalMs = STATUS_WATCH_MS): void {
  const locked = useProject((s) => isLockedStatus(s.project?.projectStatus));
  const id = useProject((s) => s.project?.id);
  useEffect(() => {
    if (!locked || !id) return;
    const timer = window.setInterval(() => void refreshProjectStatus(), intervalMs);
    return () => window.clearInterval(timer);
  }, [locked, id, intervalMs]);
}
