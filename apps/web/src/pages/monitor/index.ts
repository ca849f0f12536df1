import { lazy, type ComponentType } from 'react';

/** /monitor (SPEC §2): loads with its first visit (ECharts comes with it). */
export const monitorPages: Record<string, ComponentType> = {
  '/monitor': lazy(() => import('./MonitorPage')),
};
