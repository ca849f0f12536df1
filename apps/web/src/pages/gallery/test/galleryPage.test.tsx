import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { ImageData, ImageListData, LabelData } from '@loupe/contracts';
import { click, location, mockServer, renderPage, type Call } from '@/pages/auth/test/harness';
import { model } from '@/pages/models/test/fixtures';
import { useProject } from '@/stores/project';
import GalleryPage from '../GalleryPage';
import { imageData } from './imageFixture';

beforeEach(() => {
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(800);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1000);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

const image = (id: number, patch: Partial<ImageData> = {}): ImageData => imageData(5, id, patch);

/** 100,000 images: every page the grid asks for is made up on the spot. */
function bigDataset(calls: Call[]) {
  return (url: string) => {
    const q = new URL(url, 'http://x').searchParams;
    const page = Number(q.get('page'));
    const size = Number(q.get('pageSize'));
    const items = Array.from({ length: size }, (_, i) => image(100_000 - ((page - 1) * size + i)));
    calls.push({ method: 'GET', url, body: null, headers: {} });
    return { items, total: 100_000, nextAfter: null } satisfies ImageListData;
  };
}

const labels: LabelData[] = [{ id: 3, name: 'dent', color: '#ff0000', imageCount: 4 }];

function serve(extra: Record<string, { data?: unknown; code?: number; message?: string; status?: number }> = {}) {
  const calls = mockServer({
    'GET /api/models/5': { data: model({ id: 5, totalImages: 12, belowRecommendedImages: true }) },
    'GET /api/models/5/labels': { data: labels },
    'POST /api/models/5/images/star': { data: { changed: 1 } },
    'POST /api/models/5/images/split': { data: { changed: 2 } },
    'POST /api/models/5/images/delete': { data: { changed: 2 } },
    ...extra,
  });
  const pages: Call[] = [];
  const make = bigDataset(pages);
  const inner = globalThis.fetch;
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (url.startsWith('/api/models/5/images?')) return new Response(JSON.stringify({ code: 0, message: 'ok', data: make(url) }));
    return inner(url, init);
  });
  return { calls, pages };
}

describe('gallery', () => {
  it('renders only a window of 100,000 images and fetches only the pages it shows', async () => {
    const { pages } = serve();
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-100000');
    expect(screen.getByTestId('gallery-count').textContent).toContain('100000 shown');
    expect(screen.getAllByTestId(/^image-card-\d+$/).length).toBeLessThan(100);
    expect(new Set(pages.map((p) => new URL(p.url, 'http://x').searchParams.get('page')))).toEqual(new Set(['1']));
    expect(screen.getByTestId('gallery-recommend-hint').textContent).toContain('30');
  });

  it('maps the filter bar to the list query', async () => {
    const { pages } = serve();
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-100000');
    fireEvent.mouseDown(screen.getByTestId('gallery-filter').querySelector('.ant-select-selector') ?? screen.getByTestId('gallery-filter'));
    fireEvent.click(await screen.findByTitle('Tested, no results'));
    await waitFor(() => expect(pages.some((p) => p.url.includes('filter=testedNoResults'))).toBe(true));
  });

  it('marks the count busy while the previous filter\'s count stands in for the new one', async () => {
    serve();
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const served = globalThis.fetch;
    vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
      if (url.includes('filter=testedNoResults')) await held;
      return served(url, init);
    });
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-100000');
    const count = screen.getByTestId('gallery-count');
    expect(count.getAttribute('aria-busy')).toBe('false');
    fireEvent.mouseDown(screen.getByTestId('gallery-filter').querySelector('.ant-select-selector') ?? screen.getByTestId('gallery-filter'));
    fireEvent.click(await screen.findByTitle('Tested, no results'));
    await waitFor(() => expect(count.getAttribute('aria-busy')).toBe('true'));
    release();
    await waitFor(() => expect(count.getAttribute('aria-busy')).toBe('false'));
  });

  it('stars one image, and moves or deletes the selection', async () => {
    const { calls } = serve();
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-100000');
    await click('image-star-100000');
    await waitFor(() => expect(calls.find((c) => c.url.endsWith('/star'))?.body).toEqual({ ids: [100_000], starred: true }));
    await click('image-select-100000');
    await click('image-select-99999');
    expect(screen.getByTestId('gallery-selected').textContent).toContain('2');
    await click('split-set-valid');
    await waitFor(() => expect(calls.find((c) => c.url.endsWith('/split'))?.body).toEqual({ ids: [100_000, 99_999], split: 'valid' }));
    await waitFor(() => expect(screen.getByTestId('gallery-selected').textContent).toContain('0'));
    await click('image-select-99998');
    await click('bulk-delete');
    expect(calls.some((c) => c.url.endsWith('/delete'))).toBe(false);
    await act(async () => fireEvent.click(await screen.findByTestId('bulk-delete-confirm')));
    await waitFor(() => expect(calls.find((c) => c.url.endsWith('/delete'))?.body).toEqual({ ids: [99_998] }));
  });

  it('opens an image in the labeling page of the model type on double-click, not from its star', async () => {
    serve();
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-100000');
    fireEvent.doubleClick(screen.getByTestId('image-star-100000'));
    expect(screen.queryByTestId('location')).toBeNull();
    fireEvent.doubleClick(screen.getByTestId('image-card-100000'));
    expect(await location()).toBe('/mark/detection?imageId=100000');
  });
});
