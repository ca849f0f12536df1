import { lazy, type ComponentType } from 'react';

// Lazy: each screen's code loads with its first visit, not with the app (routes/pages.tsx wraps it in Suspense).
const CreateModelPage = lazy(() => import('./CreateModelPage'));
const ModelList = lazy(() => import('./ModelList'));
const CreateModelPage2 = lazy(() => import('./CreateModelPage2'));

/** Model screens, keyed by route path. */
export const modelPages: Record<string, ComponentType> = {
  '/agentList': ModelList,
  '/creatModel': CreateModelPage,
  '/creatModel2': CreateModelPage2,
};
