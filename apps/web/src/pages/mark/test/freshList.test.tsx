import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { ImageListData } from '@loupe/contracts';
import { mockServer } from '@/pages/auth/test/harness';
import { useImageNavigator } from '../navigation/useImageNavigator';
import { image, imageList } from './fixtures';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('the labeler opens on the list as it is now', () => {
  it('a list cached while the model had no images does not hide the images uploaded since (issue 31)', async () => {
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    // What an earlier visit cached, within its 30 s freshness: no images yet.
    client.setQueryData<ImageListData>(['mark', '5', 'images', 1], imageList([]));
    mockServer({ 'GET /api/models/5/images': { data: imageList([image(11), image(10)]) } });
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
    const { result } = renderHook(() => useImageNavigator('5', 10, () => undefined), { wrapper });
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.total).toBe(2);
    expect(result.current.image?.id).toBe(10);
  });
});
