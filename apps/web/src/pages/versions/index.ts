import { lazy, type ComponentType } from 'react';

/** Version screens (issue 31 item 4), by route path; lazy, so their code loads with the first visit. */
export const versionPages: Record<string, ComponentType> = {
  '/modelManagement': lazy(() => import('./ModelManagementPage')),
  '/train2': lazy(() => import('./ComparePage')),
};
