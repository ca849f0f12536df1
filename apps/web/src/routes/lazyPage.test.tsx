import { Suspense } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import { lazyPage, preloadPage } from './lazyPage';

afterEach(cleanup);

const Page = () => <div data-testid="page">page</div>;

describe('lazyPage', () => {
  it('suspends on a first visit that was not preloaded', async () => {
    const Lazy = lazyPage(() => Promise.resolve({ default: Page }));
    render(
      <Suspense fallback={<div data-testid="fallback" />}>
        <Lazy />
      </Suspense>,
    );
    expect(screen.queryByTestId('fallback')).not.toBeNull();
    expect(await screen.findByTestId('page')).toBeTruthy();
  });

  it('renders at once, with no fallback, once preloaded; the code is fetched once', async () => {
    let calls = 0;
    const Lazy = lazyPage(() => {
      calls += 1;
      return Promise.resolve({ default: Page });
    });
    await act(() => preloadPage(Lazy));
    await preloadPage(Lazy);
    render(
      <Suspense fallback={<div data-testid="fallback" />}>
        <Lazy />
      </Suspense>,
    );
    expect(screen.queryByTestId('fallback')).toBeNull();
    expect(screen.getByTestId('page')).toBeTruthy();
    expect(calls).toBe(1);
  });

  it('tries again after a failed load, and leaves plain components alone', async () => {
    let fail = true;
    const Lazy = lazyPage(() => (fail ? Promise.reject(new Error('offline')) : Promise.resolve({ default: Page })));
    await preloadPage(Lazy);
    fail = false;
    await preloadPage(Lazy);
    render(<Lazy />);
    expect(screen.getByTestId('page')).toBeTruthy();
    await expect(preloadPage(Page)).resolves.toBeUndefined();
  });
});
