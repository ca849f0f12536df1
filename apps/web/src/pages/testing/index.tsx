import { Suspense, type ComponentType } from 'react';
import { Spin } from 'antd';
import { lazyPage, type LazyPage } from '@/routes/lazyPage';
import { STEP_SEGMENTS } from '@/routes/steps';

// Lazy: /test's chart (ECharts) and both pages load with their first visit, not with the app.
const TestPage = lazyPage(() => import('./TestPage'));
const TestImagePage = lazyPage(() => import('./TestImagePage'));

function suspended(Page: LazyPage, name: string): LazyPage {
  const Suspended = () => (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} data-testid="test-page-loading" />}>
      <Page />
    </Suspense>
  );
  Suspended.displayName = name;
  Suspended.preload = Page.preload;
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
