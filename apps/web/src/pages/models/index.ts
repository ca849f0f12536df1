import { lazy, type ComponentType } from 'react';
import CreateModelPage from './CreateModelPage';
import ModelList from './ModelList';

const CreateModelPage2 = lazy(() => import('./CreateModelPage2'));

/** Model screens, keyed by route path. */
export const modelPages: Record<string, ComponentType> = {
  '/agentList': ModelList,
  '/creatModel': CreateModelPage,
  '/creatModel2': CreateModelPage2,
};
