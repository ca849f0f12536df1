import type { ComponentType } from 'react';
import { lazyPage } from '@/routes/lazyPage';

// Lazy: the gallery's code loads with its first visit, not with the app (routes/pages.tsx wraps it in Suspense).
const GalleryPage = lazyPage(() => import('./GalleryPage'));

/** Dataset screens, keyed by route path. */
export const galleryPages: Record<string, ComponentType> = {
  '/gallery': GalleryPage,
};
