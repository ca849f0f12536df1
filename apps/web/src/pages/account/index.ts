import { lazy, type ComponentType } from 'react';

// Lazy: each screen's code loads with its first visit, not with the app (routes/pages.tsx wraps it in Suspense).
const ChangePassword = lazy(() => import('./ChangePassword'));
const Profile = lazy(() => import('./Profile'));

/** Account screens inside the main layout, keyed by route path. */
export const accountPages: Record<string, ComponentType> = {
  '/profile': Profile,
  '/changePassword': ChangePassword,
};
