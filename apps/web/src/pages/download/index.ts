import type { ComponentType } from 'react';
import DownloadImage from './DownloadImage';
import DownloadModel from './DownloadModel';
import DownloadSDK from './DownloadSDK';

/** Download screens, keyed by route path. */
export const downloadPages: Record<string, ComponentType> = {
  '/download/downloadImage': DownloadImage,
  '/download/downloadModel': DownloadModel,
  '/download/downloadSDK': DownloadSDK,
};
