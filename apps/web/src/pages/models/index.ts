import type { ComponentType } from 'react';
import { lazyPage } from '@/routes/lazyPage';

// Lazy: each screen's code loads with its first visit, not with the app (routes/pages.tsx wraps it in Suspense).
const CreateModelPage = lazyPage(() => import('./CreateModelPage'));
const ModelList = lazyPage(() => import('./ModelList'));
const CreateModelPage2 = lazyPage(() => import('./CreateModelPage2'));

/** Model screens, keyed by route path. */
export const modelPages: Record<string, ComponentType> = {
  '/agentList': ModelList,
  '/creatModel': CreateModelPage,
  '/creatModel2': CreateModelPage2,
};
