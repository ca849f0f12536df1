import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { i18nReady } from '@/i18n';
import { App } from '@/app/App';
import { Providers } from '@/app/Providers';
import { LazyMainLayout } from '@/routes/AppRoutes';
import { preloadPage } from '@/routes/lazyPage';
import { guard } from '@/routes/guards';
import { pageFor } from '@/routes/pages';
import { findRoute } from '@/routes/table';
import { getProject } from '@/stores/project';
import { getSession } from '@/stores/session';
import './styles.css';

/**
 * The page this visit opens (after the guard's redirect, e.g. / to the sign-in page), loaded beside the language:
 * the first render then shows it at once instead of a spinner held for React's suspense throttle.
 */
function firstPage(): Promise<unknown> {
  const { pathname } = window.location;
  const { token, user } = getSession();
  const target = guard({ pathname, deployment: 'cloud', token, role: user?.role, project: getProject() }) ?? pathname;
  const route = findRoute(target, 'cloud');
  return Promise.all([preloadPage(route ? pageFor(route) : null), route?.kind === 'layout' ? LazyMainLayout.preload() : null]);
}

// A saved language other than English arrives as its own chunk; rendering waits for it so no English flashes first.
void Promise.all([i18nReady, firstPage()]).then(() =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers>
        <App />
      </Providers>
    </StrictMode>,
  ),
);
