import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Spin } from 'antd';

// Lazy: the export pages load with their first visit, not with the app.
const DownloadImage = lazy(() => import('./DownloadImage'));
const DownloadModel = lazy(() => import('./DownloadModel'));
const DownloadSDK = lazy(() => import('./DownloadSDK'));

function suspended(Page: LazyExoticComponent<ComponentType>, name: string): ComponentType {
  const Suspended = () => (
    <Suspense fallback={<Spin style={{ display: 'block', margin: 48 }} data-testid="download-page-loading" />}>
      <Page />
    </Suspense>
  );
  Suspended.displayName = name;
  return Suspended;
}

/** Download screens, keyed by route path. */
export const downloadPages: Record<string, ComponentType> = {
  '/download/downloadImage': suspended(DownloadImage, 'DownloadImage'),
  '/download/downloadModel': suspended(DownloadModel, 'DownloadModel'),
  '/download/downloadSDK': suspended(DownloadSDK, 'DownloadSDK'),
};
