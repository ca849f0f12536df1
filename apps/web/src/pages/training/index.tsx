import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { STEP_SEGMENTS } from '@/routes/steps';
import { Loading } from './shared/PageStates';
import './training.css';

// Lazy: the charts (ECharts) and the 57-field form load with the first visit to one of these pages, not
// with the app.
const ParameterPage = lazy(() => import('./parameter/ParameterPage'));
const TrainPage = lazy(() => import('./train/TrainPage'));
const ModelPage = lazy(() => import('./model/ModelPage'));

function suspended(Page: LazyExoticComponent<ComponentType>, name: string): ComponentType {
  const Suspended = () => (
    <Suspense fallback={<Loading testId="training-page-loading" />}>
      <Page />
    </Suspense>
  );
  Suspended.displayName = name;
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
