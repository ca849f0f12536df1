import { pageFor } from '@/routes/pages';
import { preloadPage } from '@/routes/lazyPage';
import { STEP_SEGMENTS } from '@/routes/steps';
import { findRoute, type Deployment } from '@/routes/table';

/** The pages a signed-in user goes through in the first hour, typed steps with each type's segment. */
const typed = (step: string) => [`/${step}`, ...STEP_SEGMENTS.map((s) => `/${step}/${s}`)];
export const MAIN_PAGE_PATHS: readonly string[] = [
  '/agentList',
  '/dashboard',
  '/gallery',
  ...typed('mark'),
  '/parameter',
  ...typed('train'),
  '/model',
  ...typed('testImage'),
  ...typed('test'),
  '/download/downloadImage',
  '/download/downloadModel',
  '/profile',
  '/usage',
];

let started = false;

/** Resolves false once there is no window (a test's environment torn down): the loop then stops. */
const idle = (): Promise<boolean> =>
  new Promise((resolve) => {
    if (typeof window === 'undefined') resolve(false);
    else if (typeof window.requestIdleCallback === 'function') window.requestIdleCallback(() => resolve(true), { timeout: 1000 });
    else window.setTimeout(() => resolve(true), 100);
  });

/**
 * Pages are split by route so the sign-in page loads only what it shows. Once a signed-in user has the app in
 * front of them, the main pages are loaded in the background, one after another while the browser is idle:
 * opening one later renders at once instead of waiting for its chunk (bench/web.mjs measures both).
 */
export function prefetchMainPages(deployment: Deployment): void {
  // Unit tests render the layout hundreds of times in jsdom: loading every page behind them only slows them and
  // outlives their environment. lazyPage.test.tsx tests the preloading itself.
  if (started || import.meta.env.MODE === 'test') return;
  started = true;
  const pages = [...new Set(MAIN_PAGE_PATHS.map((path) => findRoute(path, deployment)).map((route) => (route ? pageFor(route) : null)))];
  void (async () => {
    for (const page of pages) {
      if (!(await idle()) || typeof window === 'undefined') return;
      await preloadPage(page);
    }
  })();
}
