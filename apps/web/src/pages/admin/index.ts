import type { ComponentType } from 'react';
import { lazyPage } from '@/routes/lazyPage';

// Lazy: each screen's code loads with its first visit, not with the app (routes/pages.tsx wraps it in Suspense).
const UserManagement = lazyPage(() => import('./UserManagement'));

/** Back-office screens owned by the account area, keyed by route path. */
export const adminPages: Record<string, ComponentType> = {
  '/userManagement': UserManagement,
};
