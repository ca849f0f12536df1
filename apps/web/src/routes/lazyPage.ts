import { createElement, lazy, type ComponentType } from 'react';

/** A page component whose code loads on first use, and can be loaded ahead (`preload`). */
export type LazyPage = ComponentType & { preload: () => Promise<unknown> };

/**
 * React.lazy with a preload: once the code is in, the page renders at once instead of suspending. A suspended
 * page shows its fallback for at least React's 300 ms throttle even when its chunk is already cached; preloaded
 * (layout/prefetchPages.ts, main.tsx for the first route) it never suspends.
 */
export function lazyPage(factory: () => Promise<{ default: ComponentType }>): LazyPage {
  let loaded: ComponentType | null = null;
  let loading: Promise<{ default: ComponentType }> | null = null;
  const load = () =>
    (loading ??= factory().then(
      (m) => {
        loaded = m.default;
        return m;
      },
      (error: unknown) => {
        // A failed chunk (network) may be asked for again on the next visit.
        loading = null;
        throw error;
      },
    ));
  const Lazy = lazy(load);
  const Page = ((props: object) => createElement(loaded ?? Lazy, props)) as LazyPage;
  Page.preload = load;
  return Page;
}

/** Preload a page when it is one (pages other groups still declare with React.lazy are left to their visit). */
export function preloadPage(page: ComponentType | null | undefined): Promise<unknown> {
  const preload = (page as Partial<LazyPage> | null | undefined)?.preload;
  return preload ? preload().catch(() => undefined) : Promise.resolve();
}
