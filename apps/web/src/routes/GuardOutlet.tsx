import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useDeployment } from '@/app/config';
import { useSession } from '@/stores/session';
import { useProject } from '@/stores/project';
import { useTranslation } from '@/i18n';
import { guard, projectLockRedirect } from './guards';
import { useLockChecked } from './guardsLockCheck';
import { findRoute } from './table';

/** Runs the navigation guard for every route, before any layout renders. */
export function GuardOutlet() {
  const { pathname, key } = useLocation();
  const deployment = useDeployment();
  const token = useSession((s) => s.token);
  const role = useSession((s) => s.user?.role);
  const project = useProject((s) => s.project);
  const ctx = { pathname, deployment, token, role, project };
  const redirect = guard(ctx);
  // A redirect by the project lock waits for the server's word on the status (the stored one may be stale).
  const lockChecked = useLockChecked(redirect !== null && redirect !== pathname && redirect === projectLockRedirect(ctx), key);
  const { t } = useTranslation(['routes', 'layout']);
  const title = findRoute(pathname, deployment)?.title;
  const platform = t(deployment === 'private' ? 'layout:platformTitlePrivate' : 'layout:platformTitle');

  useEffect(() => {
    document.title = title && !redirect ? `${t(title)} · ${platform}` : platform;
  }, [title, redirect, platform, t]);

  useEffect(() => {
    // History mode keeps the old scroll offset; a new page starts at the top (SPEC §2).
    window.scrollTo(0, 0);
  }, [pathname]);

  if (redirect && redirect !== pathname && !lockChecked) return <div className="loupe-page-loading" data-testid="page-loading" />;
  if (redirect && redirect !== pathname) return <Navigate to={redirect} replace />;
  return <Outlet />;
}
