import type { ComponentType } from 'react';
import CreateModelPage from './CreateModelPage';
import ModelList from './ModelList';

/** Model screens, keyed by route path. */
export const modelPages: Record<string, ComponentType> = {
  '/agentList': ModelList,
  '/creatModel': CreateModelPage,
};
