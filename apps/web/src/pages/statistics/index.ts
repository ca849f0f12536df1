import { lazy, type ComponentType } from 'react';

/** /statistics (issue 35): dataset analysis and test analysis charts; loads with its first visit (ECharts comes with it). */
export const statisticsPages: Record<string, ComponentType> = {
  '/statistics': lazy(() => import('./StatisticsPage')),
};
