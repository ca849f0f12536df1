import { lazy, Suspense, type ComponentType } from 'react';
import { Spin } from 'antd';
import { STEP_SEGMENTS } from '@/routes/steps';
import TestImagePage from './TestImagePage';

// Lazy: the analysis chart (ECharts) loads with the first visit to /test, not with the app.
const LazyTestPage = lazy(() => import('./TestPage'));
function TestPage() {
  return (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} data-testid="test-page-loading" />}>
      <LazyTestPage />
    </Suspense>
  );
}

/** /test and /testImage with each model-type segment (SPEC §2); the page sends a model to its own segment. */
export const testingPages: Record<string, ComponentType> = Object.fromEntries(
  ['', ...STEP_SEGMENTS.map((s) => `/${s}`)].flatMap((segment) => [
    [`/test${segment}`, TestPage],
    [`/testImage${segment}`, TestImagePage],
  ]),
);
