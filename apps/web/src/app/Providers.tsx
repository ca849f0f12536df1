import { useState, type ReactNode } from 'react';
import { BrowserRouter } from 'react-router-dom';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import type { Locale } from 'antd/es/locale';
import { Limits } from '@loupe/contracts';
import { antLocaleOf, useTranslation } from '@/i18n';
import { usePrefersReducedMotion } from './reducedMotion';

/** Ant Design's locale comes with the language's bundle (i18n/lang), loaded before i18next switches to it. */
export function antLocale(language: string): Locale {
  return antLocaleOf(language);
}

function makeQueryClient() {
  // The HTTP client already decides what the user sees on failure; blind retries would repeat dialogs.
  return new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
}

/**
 * Root providers: TanStack Query, Ant Design (locale follows i18next, animations follow the system's reduced-motion
 * setting), the App context and the router.
 */
export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const { i18n } = useTranslation();
  const reducedMotion = usePrefersReducedMotion();
  return (
    <QueryClientProvider client={queryClient}>
      <ConfigProvider locale={antLocale(i18n.language)} theme={{ token: { colorPrimary: '#1f6feb', motion: !reducedMotion } }}>
        <AntApp
          message={{ duration: Limits.messageDurationMs / 1000, maxCount: 3, top: Limits.warningOffsetPx }}
          notification={{ placement: 'topRight' }}
        >
          {/* Location updates render in the same batch as store updates: with transitions, signing out would
              render the old page without a session first and its guard would win over the sign-out redirect. */}
          <BrowserRouter useTransitions={false}>{children}</BrowserRouter>
        </AntApp>
      </ConfigProvider>
    </QueryClientProvider>
  );
}
