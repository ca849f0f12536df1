import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Spin } from 'antd';
import { STEP_SEGMENTS } from '@/routes/steps';

// Lazy: /test's chart (ECharts) and both pages load with their first visit, not with the app.
const TestPage = lazy(() => import('./TestPage'));
const TestImagePage = lazy(() => import('./TestImagePage'));

function suspended(Page: LazyExoticComponent<ComponentType>, name: string): ComponentType {
  const Suspended = () => (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} data-testid="test-page-loading" />}>
      <Page />
    </Suspense>
  );
  Suspended.displayName = name;
  return Suspended;
}

const Test = suspended(TestPage, 'TestPage');
const TestImage = suspended(TestImagePage, 'TestImagePage');

/** /test and /testImage with each model-type segment (SPEC §2); the page sends a model to its own segment. */
export const testingPages: Record<string, ComponentType> = Object.fromEntries(
  ['', ...STEP_SEGMENTS.map((s) => `/${s}`)].flatMap((segment) => [
    [`/test${segment}`, Test],
    [`/testImage${segment}`, TestImage],
  ]),
);
