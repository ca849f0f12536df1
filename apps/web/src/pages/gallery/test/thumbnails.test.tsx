import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { ImageData, LabelData, ModelType } from '@loupe/contracts';
import { location, mockServer, renderPage } from '@/pages/auth/test/harness';
import { model } from '@/pages/models/test/fixtures';
import { useProject } from '@/stores/project';
import GalleryPage from '../GalleryPage';
import { PREVIEW_DELAY_MS } from '../grid/ImageCard';
import { legendOf } from '../grid/ImagePreview';
import { outline, svgPoints } from '../grid/shapes';
import { imageData } from './imageFixture';

const labels: LabelData[] = [
  { id: 3, name: 'dent', color: '#ff0000', imageCount: 1 },
  { id: 4, name: 'scratch', color: '#00ff00', imageCount: 1 },
];

const labeled = imageData(5, 20, {
  width: 200,
  height: 100,
  labeled: true,
  annotationCount: 3,
  shapes: [
    { labelId: 3, geometry: { kind: 'box', x1: 10, y1: 20, x2: 60, y2: 80 } },
    { labelId: 4, geometry: { kind: 'rbox', cx: 100, cy: 50, w: 40, h: 20, angle: 90 } },
    { labelId: 4, geometry: { kind: 'polygon', points: [[120, 10], [180, 20], [150, 80]] } },
  ],
});
const bare = imageData(5, 19);

function serve(type: ModelType, items: ImageData[]) {
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type, sidebarType: 8, projectStatus: 'no' });
  return mockServer({
    'GET /api/models/5': { data: model({ id: 5, totalImages: items.length }) },
    'GET /api/models/5/labels': { data: labels },
    'GET /api/models/5/images': { data: { items, total: items.length, nextAfter: null } },
  });
}

beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(800);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1000);
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

describe('shape outlines', () => {
  it('boxes, rotated boxes and polygons in image pixels', () => {
    expect(outline({ kind: 'box', x1: 1, y1: 2, x2: 5, y2: 7 })).toEqual([[1, 2], [5, 2], [5, 7], [1, 7]]);
    // 90°: the 40×20 box stands upright around its centre.
    const r = outline({ kind: 'rbox', cx: 100, cy: 50, w: 40, h: 20, angle: 90 }).map(([x, y]) => [Math.round(x), Math.round(y)]);
    expect(new Set(r.map(([x]) => x))).toEqual(new Set([90, 110]));
    expect(new Set(r.map(([, y]) => y))).toEqual(new Set([30, 70]));
    expect(svgPoints({ kind: 'polygon', points: [[1.234, 2], [3, 4.06], [5, 6]] })).toBe('1.2,2 3,4.1 5,6');
  });

  it('the preview legend counts shapes per label in the label list order', () => {
    expect(legendOf(labeled, labels)).toEqual([
      { id: 3, name: 'dent', color: '#ff0000', count: 1 },
      { id: 4, name: 'scratch', color: '#00ff00', count: 2 },
    ]);
    expect(legendOf(bare, labels)).toEqual([]);
  });
});

describe('gallery thumbnails draw their labels (issue 31 item 5)', () => {
  it('draws each shape over the thumbnail in its label colour, scaled by the image size; none on an unlabeled image', async () => {
    serve('DETECTION', [labeled, bare]);
    renderPage(<GalleryPage />, '/gallery');
    const svg = await screen.findByTestId('image-shapes-20');
    expect(svg.getAttribute('viewBox')).toBe('0 0 200 100');
    expect(screen.getByTestId('gallery-hint').textContent).toContain('double-click');
    await waitFor(() => expect(svg.querySelector('polygon')?.getAttribute('stroke')).toBe('#ff0000'));
    const shapes = [...svg.querySelectorAll('polygon')];
    expect(shapes.map((p) => p.getAttribute('data-kind'))).toEqual(['box', 'rbox', 'polygon']);
    expect(shapes.map((p) => p.getAttribute('stroke'))).toEqual(['#ff0000', '#00ff00', '#00ff00']);
    expect(shapes[0]!.getAttribute('points')).toBe('10,20 60,20 60,80 10,80');
    expect(screen.queryByTestId('image-shapes-19')).toBeNull();
  });

  it('one click previews the image large with its labels; a double click opens the labeler without a preview', async () => {
    serve('DETECTION', [labeled, bare]);
    renderPage(<GalleryPage />, '/gallery');
    const card = await screen.findByTestId('image-card-20');
    fireEvent.click(card, { detail: 1 });
    const preview = await screen.findByTestId('image-preview');
    expect(preview.getAttribute('data-image')).toBe('20');
    expect(screen.getByTestId('image-preview-shapes').querySelectorAll('polygon')).toHaveLength(3);
    expect(screen.getByTestId('image-preview-legend').textContent).toContain('scratch: 2');
    fireEvent.click(screen.getByTestId('image-preview-close'));
    await waitFor(() => expect(screen.queryByTestId('image-preview')).toBeNull());

    // The two clicks of a double click, then the double click: the labeler opens, the preview never shows.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const again = screen.getByTestId('image-card-20');
    fireEvent.click(again, { detail: 1 });
    fireEvent.click(again, { detail: 2 });
    fireEvent.doubleClick(again, { detail: 2 });
    await act(async () => vi.advanceTimersByTime(PREVIEW_DELAY_MS * 2));
    expect(screen.queryByTestId('image-preview')).toBeNull();
    expect(await location()).toBe('/mark/detection?imageId=20');
  });

  it('a click on the star or the checkbox does not preview', async () => {
    serve('DETECTION', [labeled]);
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-20');
    fireEvent.click(screen.getByTestId('image-star-20'), { detail: 1 });
    await new Promise((r) => setTimeout(r, PREVIEW_DELAY_MS + 100));
    expect(screen.queryByTestId('image-preview')).toBeNull();
  });

  it('classification thumbnails show their class as a tag in the class colour', async () => {
    serve('classification', [imageData(5, 30, { labeled: true, classLabelId: 4 })]);
    renderPage(<GalleryPage />, '/gallery');
    await screen.findByTestId('image-card-30');
    const tag = await screen.findByTestId('image-class-tag');
    await waitFor(() => expect(tag.textContent).toBe('scratch'));
    expect((tag.querySelector('.loupe-chip-dot') as HTMLElement).style.background).toBe('rgb(0, 255, 0)');
  });
});
