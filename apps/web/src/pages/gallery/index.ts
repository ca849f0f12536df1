import type { ComponentType } from 'react';
import GalleryPage from './GalleryPage';

/** Dataset screens, keyed by route path. */
export const galleryPages: Record<string, ComponentType> = {
  '/gallery': GalleryPage,
};
