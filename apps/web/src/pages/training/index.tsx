import { Suspense, type ComponentType } from 'react';
import { lazyPage, type LazyPage } from '@/routes/lazyPage';
import { STEP_SEGMENTS } from '@/routes/steps';
import { Loading } from './shared/PageStates';
import './training.css';

// Lazy: the charts (ECharts) and the 57-field form load with the first visit to one of these pages, not
// with the app.
const ParameterPage = lazyPage(() => import('./parameter/ParameterPage'));
const TrainPage = lazyPage(() => import('./train/TrainPage'));
const ModelPage = lazyPage(() => import('./model/ModelPage'));

function suspended(Page: LazyPage, name: string): LazyPage {
  const Suspended = () => (
    <Suspense fallback={<Loading testId="training-page-loading" />}>
      <Page />
    </Suspense>
  );
  Suspended.displayName = name;
  Suspended.preload = Page.preload;
  return Suspended;
}

const Train = suspended(TrainPage, 'TrainPage');

/** Training screens by route path (SPEC §2): /parameter, /train with its model-type children, /model. */
export const trainingPages: Record<string, ComponentType> = {
  '/parameter': suspended(ParameterPage, 'ParameterPage'),
  '/train': Train,
  ...Object.fromEntries(STEP_SEGMENTS.map((segment) => [`/train/${segment}`, Train])),
  '/model': suspended(ModelPage, 'ModelPage'),
};
