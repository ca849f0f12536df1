import { useEffect } from 'react';
import { useProject } from '@/stores/project';

/**
 * Keeps the open project's status in step with its runs: 'testing' while one is active, so the sidebar locks
 * its menus and the §2 guard only opens /test; back to 'no' when none is. `active` undefined: not known yet.
 * A 'training' status is never overwritten from here (the training page owns it).
 */
export function useProjectTesting(modelId: string, active: boolean | undefined): void {
  const status = useProject((s) => (s.project?.id === modelId ? s.project.projectStatus : undefined));
  const updateProject = useProject((s) => s.updateProject);
  useEffect(() => {
    if (active === undefined || status === undefined || status === 'training') return;
    if (active && status !== 'testing') updateProject({ projectStatus: 'testing' });
    else if (!active && status === 'testing') updateProject({ projectStatus: 'no' });
  }, [active, status, updateProject]);
}
