import type { ComponentType } from 'react';
import { lazyPage } from '@/routes/lazyPage';

// Lazy: the labeler (its canvas, tools and workers) loads with the first visit to a labeling route, not with the
// app; routes/pages.tsx wraps pages in Suspense. MarkPage.tsx decides which kind each path is.
const MARK_PATHS = ['/mark', '/mark/detection', '/mark/segmentation', '/mark/ocr', '/mark/measure'] as const;

/** Labeling screens by route path (SPEC §2): classification has no type segment, so it is /mark itself. */
export const markPages: Record<string, ComponentType> = Object.fromEntries(
  MARK_PATHS.map((path) => [path, lazyPage(() => import('./MarkPage').then((m) => ({ default: m.markPages[path]! })))]),
);
