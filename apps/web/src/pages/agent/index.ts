import { lazy, type ComponentType } from 'react';

/** /agent (issue 35): loads with its first visit (ECharts and the run view come with it). */
export const agentPages: Record<string, ComponentType> = {
  '/agent': lazy(() => import('./AgentPage')),
};
