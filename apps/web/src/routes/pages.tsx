import { Suspense, type ComponentType } from 'react';
import { Spin } from 'antd';
import { authPages } from '@/pages/auth';
import { accountPages } from '@/pages/account';
import { adminPages } from '@/pages/admin';
import { modelPages } from '@/pages/models';
import { galleryPages } from '@/pages/gallery';
import { markPages } from '@/pages/mark';
import { downloadPages } from '@/pages/download';
import { testingPages } from '@/pages/testing';
import { trainingPages } from '@/pages/training';
import { versionPages } from '@/pages/versions';
import { monitorPages } from '@/pages/monitor';
import { agentPages } from '@/pages/agent';
import { statisticsPages } from '@/pages/statistics';
import { TitlePage } from '@/pages/shell/TitlePage';
import { lazyPage } from './lazyPage';
import type { RouteDef } from './table';

// Lazy like every page group: a page's code loads with its first visit, not with the app.
const ModelDashboard = lazyPage(() => import('@/pages/dashboard/ModelDashboard'));
const LoadingPage = lazyPage(() => import('@/pages/shell/LoadingPage').then((m) => ({ default: m.LoadingPage })));
const NotFound = lazyPage(() => import('@/pages/shell/NotFound').then((m) => ({ default: m.NotFound })));
const Usage = lazyPage(() => import('@/pages/shell/Usage').then((m) => ({ default: m.Usage })));

const SHELL_PAGES: Record<string, ComponentType> = {
  '/loading-page': LoadingPage,
  '/404': NotFound,
  // The shell's four steps with the open model's summary above them.
  '/dashboard': ModelDashboard,
  '/usage': Usage,
};

/** Pages built elsewhere are mounted by path; anything not built yet shows its title over an empty state. */
export function pageFor(route: RouteDef): ComponentType | null {
  return (
    SHELL_PAGES[route.path] ??
    authPages[route.path] ??
    accountPages[route.path] ??
    adminPages[route.path] ??
    modelPages[route.path] ??
    galleryPages[route.path] ??
    markPages[route.path] ??
    downloadPages[route.path] ??
    testingPages[route.path] ??
    trainingPages[route.path] ??
    versionPages[route.path] ??
    monitorPages[route.path] ??
    agentPages[route.path] ??
    statisticsPages[route.path] ??
    null
  );
}

export function renderPage(route: RouteDef) {
  const Page = pageFor(route);
  // Pages may be React.lazy components: each route's code loads with its first visit, not with the app.
  if (Page)
    return (
      <Suspense
        fallback={
          <div className="loupe-page-loading" data-testid="page-loading">
            <Spin size="large" />
          </div>
        }
      >
        <Page />
      </Suspense>
    );
  return <TitlePage title={route.title} segment={route.segment} />;
}
