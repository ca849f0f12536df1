import type { ComponentType } from 'react';
import { lazyPage } from '@/routes/lazyPage';

// Lazy: each screen's code loads with its first visit, not with the app (routes/pages.tsx wraps it in Suspense).
const ChangePassword = lazyPage(() => import('./ChangePassword'));
const Profile = lazyPage(() => import('./Profile'));

/** Account screens inside the main layout, keyed by route path. */
export const accountPages: Record<string, ComponentType> = {
  '/profile': Profile,
  '/changePassword': ChangePassword,
};
