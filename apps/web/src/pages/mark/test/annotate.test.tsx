import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Link } from 'react-router-dom';
import { screenPoint, type Editor } from '@loupe/annotator';
import { Errors, type ImageAnnotationsData } from '@loupe/contracts';
import { click, location, mockServer, renderPage, type Call } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import { markPages } from '..';
import { PREFETCH_FRESH_MS } from '../annotate/annotationPrefetch';
import { image, imageList, labels, openModel } from './fixtures';

// The real canvas draws with a 2D context jsdom lacks; the page's contract with it is the editor it is given.
const canvas = vi.hoisted(() => ({ editor: null as Editor | null }));
vi.mock('@/pages/mark/canvas', () => ({
  AnnotatorCanvas: ({ editor }: { editor: Editor }) => {
    canvas.editor = editor;
    return <div data-testid="annotator-canvas" />;
  },
}));
const editor = () => canvas.editor!;

beforeEach(() => openModel('DETECTION'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
  useSession.getState().clear();
  canvas.editor = null;
});

type Route = { data?: unknown; code?: number; message?: string; status?: number };
const box = { kind: 'box' as const, x1: 10, y1: 10, x2: 30, y2: 20 };
const set = (imageId: number, version: number, annotations: ImageAnnotationsData['annotations'] = []) => ({ imageId, version, annotations });

function serve(extra: Record<string, Route> = {}) {
  return mockServer({
    'GET /api/user/guides': { data: { seen: ['mark-detection', 'mark-ocr'] } },
    'GET /api/models/5/labels': { data: labels },
    'GET /api/models/5/labeling-settings': { data: { minArea: 4 } },
    'GET /api/models/5/images': { data: imageList([image(11), image(10)]) },
    'GET /api/models/5/images/11/annotations': { data: set(11, 3, [{ id: 70, labelId: 3, geometry: box }]) },
    'GET /api/models/5/images/10/annotations': { data: set(10, 0) },
    'GET /api/models/5/images/11/test-results': { data: { imageId: 11, convertible: false, results: [] } },
    'GET /api/models/5/images/10/test-results': { data: { imageId: 10, convertible: false, results: [] } },
    'PUT /api/models/5/images/11/annotations': { data: set(11, 4) },
    ...extra,
  });
}

const text = (testId: string) => screen.getByTestId(testId).textContent;
const puts = (calls: Call[]) => calls.filter((c) => c.method === 'PUT' && c.url.endsWith('/annotations'));
const status = () => screen.getByTestId('mark-save-status').dataset.status;
const run = (fn: () => unknown) => act(async () => void fn());

async function open(route = '/mark/detection', path = route, shapes = 1) {
  const Page = markPages[route]!;
  renderPage(
    <>
      <Page />
      <Link to="/gallery" data-testid="away">
        away
      </Link>
    </>,
    path,
  );
  await screen.findByTestId('annotator-canvas');
  await waitFor(() => expect(editor().state.shapes).toHaveLength(shapes));
  await waitFor(() => expect(screen.queryByTestId('mark-image-loading')).toBeNull());
}

describe('annotation labeling', () => {
  it("loads the image's annotations and shows the selected shape's measurements", async () => {
    serve();
    await open();
    expect(text('mark-position')).toBe('1 / 2');
    expect(screen.getByTestId('mark-tool-box')).toBeTruthy();
    expect(screen.queryByTestId('mark-tool-polygon')).toBeNull();
    expect(text('mark-label-count-3')).toBe('1');
    await run(() => editor().select([editor().state.shapes[0]!.id]));
    expect(text('mark-prop-topLeft')).toContain('(10, 10)');
    expect(text('mark-prop-bottomRight')).toContain('(30, 20)');
    expect(text('mark-prop-area')).toContain('200 px²');
    expect(text('mark-prop-centroid')).toContain('(20, 15)');
    expect(screen.queryByTestId('mark-text-input')).toBeNull();
  });

  it('saves a committed change on top of the loaded version, once, after the debounce', async () => {
    const calls = serve();
    await open();
    await run(() => editor().select([editor().state.shapes[0]!.id]));
    await run(() => editor().deleteSelected());
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    await waitFor(() => expect(status()).toBe('saved'));
    expect(puts(calls).map((c) => c.body)).toEqual([{ baseVersion: 3, annotations: [] }]);
    await run(() => editor().undo());
    await waitFor(() => expect(puts(calls)).toHaveLength(2));
    expect(puts(calls)[1]!.body).toEqual({ baseVersion: 4, annotations: [{ labelId: 3, geometry: box }] });
  });

  it('the first label is chosen when the model has labels, so the first box drawn at once is kept (issue 31)', async () => {
    const calls = serve({ 'GET /api/models/5/images/11/annotations': { data: set(11, 3) } });
    await open('/mark/detection', '/mark/detection', 0);
    await waitFor(() => expect(editor().state.activeLabelId).toBe(3));
    await click('mark-tool-box');
    await run(() => editor().pointerDown({ point: screenPoint(5, 5), button: 0 }));
    await run(() => editor().pointerMove({ point: screenPoint(40, 30), button: 0 }));
    await run(() => editor().pointerUp({ point: screenPoint(40, 30), button: 0 }));
    expect(screen.queryByText('Please select or create a label first.')).toBeNull();
    expect(editor().state.shapes).toHaveLength(1);
    expect(editor().state.shapes[0]!.labelId).toBe(3);
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    expect((puts(calls)[0]!.body as { annotations: { labelId: number }[] }).annotations.map((a) => a.labelId)).toEqual([3]);
  });

  it("on a conflict shows the server's message and puts the server's set into the editor", async () => {
    const message = 'These annotations were changed in another tab or by another user.';
    const calls = serve({ 'PUT /api/models/5/images/11/annotations': { code: Errors.annotationConflict.code, message, status: 409 } });
    await open();
    await run(() => editor().selectAll());
    await run(() => editor().deleteSelected());
    // The deletion was sent (on a loaded machine the refusal and the reload may already be in by now).
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    expect(puts(calls)[0]!.body).toEqual({ baseVersion: 3, annotations: [] });
    expect(await screen.findByText(message)).toBeTruthy();
    await waitFor(() => expect(editor().state.shapes).toHaveLength(1));
    expect(calls.filter((c) => c.url.endsWith('/11/annotations') && c.method === 'GET')).toHaveLength(2);
    await waitFor(() => expect(status()).toBe('saved'));
    expect(editor().state.canUndo).toBe(false);
  });

  it('a key picks a label; switching image sends the pending save first; the end is announced', async () => {
    const calls = serve();
    // Where the page stands when the save leaves: still on image 11 (the neighbour's annotations may have been
    // prefetched before, which is no switch).
    const served = globalThis.fetch;
    let shownAtSave: string | null = null;
    vi.stubGlobal('fetch', (url: string, init: RequestInit = {}) => {
      if (init.method === 'PUT' && url.endsWith('/11/annotations')) shownAtSave = text('mark-image-name');
      return served(url, init);
    });
    await open();
    await run(() => fireEvent.keyDown(window, { key: '1', code: 'Digit1' }));
    expect(screen.getByTestId('mark-label-3').dataset.active).toBe('true');
    await run(() => editor().selectAll());
    await run(() => editor().deleteSelected());
    await click('mark-next');
    await waitFor(() => expect(text('mark-position')).toBe('2 / 2'));
    await waitFor(() => expect(editor().state.shapes).toHaveLength(0));
    expect(puts(calls)).toHaveLength(1);
    expect(shownAtSave).toBe('img11.png');
    expect(text('mark-image-name')).toBe('img10.png');
    await run(() => fireEvent.keyDown(window, { key: 'd', code: 'KeyD' }));
    expect(await screen.findByText('Already the last image.')).toBeTruthy();
  });

  it("opens the next image from the neighbour's prefetched annotations, without asking again", async () => {
    const calls = serve();
    await open();
    const gets = () => calls.filter((c) => c.method === 'GET' && c.url.endsWith('/10/annotations'));
    await waitFor(() => expect(gets()).toHaveLength(1));
    await click('mark-next');
    await waitFor(() => expect(text('mark-position')).toBe('2 / 2'));
    await waitFor(() => expect(screen.queryByTestId('mark-image-loading')).toBeNull());
    expect(editor().state.shapes).toHaveLength(0);
    expect(gets()).toHaveLength(1);
  });

  it('a prefetched set older than a few seconds is checked on open; a newer one on the server replaces it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const ten: Route = { data: set(10, 0) };
      const calls = serve({ 'GET /api/models/5/images/10/annotations': ten, 'PUT /api/models/5/images/10/annotations': { data: set(10, 3) } });
      await open();
      const gets = () => calls.filter((c) => c.method === 'GET' && c.url.endsWith('/10/annotations'));
      await waitFor(() => expect(gets()).toHaveLength(1));
      // Another tab saves image 10 while this one still works on image 11.
      ten.data = set(10, 2, [{ id: 80, labelId: 3, geometry: box }]);
      vi.setSystemTime(Date.now() + PREFETCH_FRESH_MS + 1000);
      await click('mark-next');
      await waitFor(() => expect(editor().state.shapes).toHaveLength(1));
      expect(gets()).toHaveLength(2);
      await run(() => editor().selectAll());
      await run(() => editor().deleteSelected());
      await waitFor(() => expect(puts(calls)).toHaveLength(1));
      expect(puts(calls)[0]!.body).toEqual({ baseVersion: 2, annotations: [] });
    } finally {
      vi.useRealTimers();
    }
  });

  it('an open polygon keeps a signed-in user on the image and on the page', async () => {
    openModel('SEGMENTATION');
    useSession.setState({ token: 'tok' });
    serve({
      'GET /api/user/guides': { data: { seen: ['mark-segmentation'] } },
      'GET /api/models/5/images/11/annotations': { data: set(11, 3) },
    });
    await open('/mark/segmentation', '/mark/segmentation', 0);
    await run(() => editor().setActiveLabel(3));
    await click('mark-tool-polygon');
    for (const [x, y] of [[5, 5], [40, 5]]) {
      await run(() => editor().pointerDown({ point: screenPoint(x!, y!), button: 0 }));
      await run(() => editor().pointerUp({ point: screenPoint(x!, y!), button: 0 }));
    }
    expect(editor().hasUnfinishedDrawing()).toBe(true);
    await click('mark-next');
    expect(await screen.findByText(/Drawing not finished/)).toBeTruthy();
    expect(text('mark-position')).toBe('1 / 2');
    await click('away');
    expect(screen.queryByTestId('location')).toBeNull();
    await run(() => fireEvent.keyDown(window, { key: 'Escape', code: 'Escape' }));
    await click('away');
    expect(await location()).toBe('/gallery');
  });

  it('writes the OCR text of the selected box on Enter', async () => {
    openModel('OCR');
    const calls = serve();
    await open('/mark/ocr');
    await run(() => editor().select([editor().state.shapes[0]!.id]));
    fireEvent.change(screen.getByTestId('mark-text-input'), { target: { value: 'LOT 42-A' } });
    await run(() => fireEvent.keyDown(screen.getByTestId('mark-text-input'), { key: 'Enter', code: 'Enter', keyCode: 13 }));
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    expect(puts(calls)[0]!.body).toEqual({ baseVersion: 3, annotations: [{ labelId: 3, geometry: { ...box, text: 'LOT 42-A' } }] });
  });

  it('offers test results and shows why they cannot be converted outside the test split', async () => {
    const calls = serve({
      'GET /api/models/5/images/11/test-results': {
        data: { imageId: 11, convertible: false, results: [{ id: 1, labelId: 3, geometry: box, confidence: 0.9 }] },
      },
      'POST /api/models/5/images/11/test-results/convert': { code: Errors.notTestData.code, message: 'Not test data, cannot convert.', status: 409 },
    });
    await open();
    expect(await screen.findByTestId('mark-test-toggle')).toBeTruthy();
    await click('mark-convert');
    expect(await screen.findByText('Not test data, cannot convert.')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ baseVersion: 3 });
  });

  it('applies and saves the minimum area', async () => {
    const calls = serve({ 'PUT /api/models/5/labeling-settings': { data: { minArea: 120 } } });
    await open('/mark/detection', '/mark/detection?imageId=10', 0);
    expect(text('mark-position')).toBe('2 / 2');
    expect(editor().state.minArea).toBe(4);
    const input = screen.getByTestId('mark-min-area');
    fireEvent.change(input, { target: { value: '120' } });
    await run(() => fireEvent.blur(input));
    await waitFor(() => expect(editor().state.minArea).toBe(120));
    expect(calls.find((c) => c.url.endsWith('/labeling-settings') && c.method === 'PUT')?.body).toEqual({ minArea: 120 });
  });
});
