import type { ComponentType } from 'react';
import DownloadImage from './DownloadImage';

/** Download screens built so far, keyed by route path. */
export const downloadPages: Record<string, ComponentType> = {
  '/download/downloadImage': DownloadImage,
};
