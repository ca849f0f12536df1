import { Suspense, type ComponentType } from 'react';
import { Spin } from 'antd';
import { lazyPage, type LazyPage } from '@/routes/lazyPage';

// Lazy: the export pages load with their first visit, not with the app.
const DownloadImage = lazyPage(() => import('./DownloadImage'));
const DownloadModel = lazyPage(() => import('./DownloadModel'));
const DownloadSDK = lazyPage(() => import('./DownloadSDK'));

function suspended(Page: LazyPage, name: string): LazyPage {
  const Suspended = () => (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} data-testid="download-page-loading" />}>
      <Page />
    </Suspense>
  );
  Suspended.displayName = name;
  Suspended.preload = Page.preload;
  return Suspended;
}

/** Download screens, keyed by route path. */
export const downloadPages: Record<string, ComponentType> = {
  '/download/downloadImage': suspended(DownloadImage, 'DownloadImage'),
  '/download/downloadModel': suspended(DownloadModel, 'DownloadModel'),
  '/download/downloadSDK': suspended(DownloadSDK, 'DownloadSDK'),
};
