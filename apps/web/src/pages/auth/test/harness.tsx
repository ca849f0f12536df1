import type { ReactElement } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { App } from 'antd';
import { act, configure, fireEvent, render, screen } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { vi } from 'vitest';
import i18n from '@/i18n';

// Two cores are shared with model training: give Ant Design's asynchronous validation room before failing.
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 30_000 });

// Ant Design's responsive grid asks for matchMedia, which jsdom does not have.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}

// Ant Design's Select measures its popup with ResizeObserver, which jsdom does not have either.
if (!('ResizeObserver' in globalThis)) {
  globalThis.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
}

// jsdom resolves computed styles by walking every stylesheet, and Ant Design injects hundreds of them; the
// pages under test never depend on computed values, so an empty declaration keeps each test fast.
const emptyStyle = () => document.createElement('div').style;
window.getComputedStyle = emptyStyle as unknown as typeof window.getComputedStyle;

function Where() {
  const l = useLocation();
  return <div data-testid="location">{l.pathname + l.search}</div>;
}

/** Renders a page at `path` with a fresh query cache; any navigation away shows up in `location()`. */
export function renderPage(page: ReactElement, path = '/') {
  void i18n.changeLanguage('en');
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(
    // Inside <App>, toasts and dialogs render in this tree and are cleaned up with it, as in the shell.
    <App>
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[path]}>
          <Routes>
            <Route path={path.split('?')[0]} element={page} />
            <Route path="*" element={<Where />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>
    </App>,
  );
}

export const location = () => screen.findByTestId('location').then((e) => e.textContent);

export interface Call {
  method: string;
  url: string;
  body: unknown;
  headers: Record<string, string>;
}

/** Replaces fetch with canned envelopes keyed by "METHOD path"; records every call. */
export function mockServer(routes: Record<string, { code?: number; message?: string; data?: unknown; status?: number }>) {
  const calls: Call[] = [];
  const fetchMock = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const headers = (init.headers ?? {}) as Record<string, string>;
    let body: unknown = init.body;
    if (typeof init.body === 'string') body = JSON.parse(init.body);
    else if (init.body instanceof URLSearchParams) body = Object.fromEntries(init.body);
    calls.push({ method, url, body, headers });
    const key = `${method} ${url.split('?')[0]}`;
    const r = routes[key];
    if (!r) return new Response(JSON.stringify({ code: 20004, message: `no mock for ${key}`, data: null }), { status: 404 });
    return new Response(JSON.stringify({ code: r.code ?? 0, message: r.message ?? 'ok', data: r.data ?? null }), {
      status: r.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}

export function type(testId: string, value: string) {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
}

export async function click(testId: string) {
  await act(async () => {
    fireEvent.click(screen.getByTestId(testId));
  });
}
