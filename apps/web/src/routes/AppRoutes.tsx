import { Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router-dom';
import { Spin } from 'antd';
import { useDeployment } from '@/app/config';
import { PublicLayout } from '@/layout/PublicLayout';
import { StandaloneLayout } from '@/layout/StandaloneLayout';
import { GuardOutlet } from './GuardOutlet';
import { lazyPage } from './lazyPage';
import { renderPage } from './pages';
import { NOT_FOUND_PATH, routesFor, type RouteDef, type RouteKind } from './table';

// The sidebar and top bar load with the first working page, not with the sign-in page.
export const LazyMainLayout = lazyPage(() => import('@/layout/MainLayout').then((m) => ({ default: m.MainLayout })));
function MainLayout() {
  return (
    <Suspense
      fallback={
        <div className="loupe-centered" data-testid="app-loading">
          <Spin size="large" />
        </div>
      }
    >
      <LazyMainLayout />
    </Suspense>
  );
}

const LAYOUTS: Record<RouteKind, () => React.JSX.Element> = {
  public: PublicLayout,
  standalone: StandaloneLayout,
  layout: MainLayout,
};

function element(route: RouteDef) {
  return route.redirect ? <Navigate to={route.redirect} replace /> : renderPage(route);
}

/** The route table rendered for this deployment; unknown paths go to /404. */
export function AppRoutes() {
  const routes = routesFor(useDeployment());
  return (
    <Routes>
      <Route element={<GuardOutlet />}>
        {(Object.keys(LAYOUTS) as RouteKind[]).map((kind) => {
          const Layout = LAYOUTS[kind];
          return (
            <Route key={kind} element={<Layout />}>
              {routes
                .filter((r) => r.kind === kind)
                .map((r) => (
                  <Route key={r.path} path={r.path} element={element(r)} />
                ))}
            </Route>
          );
        })}
        <Route path="*" element={<Navigate to={NOT_FOUND_PATH} replace />} />
      </Route>
    </Routes>
  );
}
