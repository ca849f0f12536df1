import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Errors } from '@loupe/contracts';
import { click, location, mockServer, renderPage, type Call } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import { markPages } from '..';
import { image, imageList, labels, openModel } from './fixtures';

const ClassifyRoute = markPages['/mark']!;
const DetectionRoute = markPages['/mark/detection']!;

beforeEach(() => openModel('classification'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

type Route = { data?: unknown; code?: number; message?: string; status?: number };

function serve(extra: Record<string, Route> = {}) {
  return mockServer({
    'GET /api/user/guides': { data: { seen: ['mark-classification'] } },
    'GET /api/models/5/labels': { data: labels },
    'GET /api/models/5/images': { data: imageList([image(103), image(102, { classLabelId: 4, labeled: true }), image(101)]) },
    'PUT /api/models/5/images/103/class': { data: { imageId: 103, classLabelId: 3, labeled: true } },
    'PUT /api/models/5/images/102/class': { data: { imageId: 102, classLabelId: null, labeled: false } },
    'PUT /api/models/5/images/101/class': { data: { imageId: 101, classLabelId: 4, labeled: true } },
    ...extra,
  });
}

const text = (testId: string) => screen.getByTestId(testId).textContent;
const classPuts = (calls: Call[]) => calls.filter((c) => c.method === 'PUT').map((c) => [c.url, c.body]);
const key = (k: string) => act(async () => void fireEvent.keyDown(window, { key: k }));

async function openAt(path: string) {
  renderPage(<ClassifyRoute />, path);
  await screen.findByTestId('mark-image');
}

describe('classification labeling', () => {
  it('opens ?imageId= at its place in the gallery order and shows its class', async () => {
    serve();
    await openAt('/mark?imageId=102');
    expect(text('mark-position')).toBe('2 / 3');
    expect(text('mark-image-name')).toBe('img102.png');
    expect(screen.getByTestId('mark-current-class').dataset.labelId).toBe('4');
    expect(screen.getByTestId('mark-class-4').dataset.active).toBe('true');
    expect(screen.getByTestId('mark-class-3').dataset.active).toBe('false');
  });

  it('a key 1–9 sets the class and opens the next image; 0 clears it; the ends are announced', async () => {
    const calls = serve();
    await openAt('/mark');
    expect(text('mark-position')).toBe('1 / 3');

    await key('1');
    await waitFor(() => expect(text('mark-position')).toBe('2 / 3'));
    await waitFor(() => expect(screen.getByTestId('mark-save-status').dataset.status).toBe('saved'));
    expect(classPuts(calls)).toEqual([['/api/models/5/images/103/class', { labelId: 3 }]]);

    await key('0');
    await waitFor(() => expect(classPuts(calls)).toHaveLength(2));
    expect(classPuts(calls)[1]).toEqual(['/api/models/5/images/102/class', { labelId: null }]);
    expect(text('mark-position')).toBe('2 / 3');
    await waitFor(() => expect(screen.getByTestId('mark-current-class').dataset.labelId).toBe(''));

    await click('mark-prev');
    await waitFor(() => expect(text('mark-position')).toBe('1 / 3'));
    expect(screen.getByTestId('mark-current-class').dataset.labelId).toBe('3');
    await key('a');
    expect(await screen.findByText('Already the first image.')).toBeTruthy();
    expect(text('mark-position')).toBe('1 / 3');
  });

  it('a click on a label assigns it, and on the last image it stays with a notice', async () => {
    const calls = serve();
    await openAt('/mark?imageId=101');
    await click('mark-class-4');
    await waitFor(() => expect(classPuts(calls)).toEqual([['/api/models/5/images/101/class', { labelId: 4 }]]));
    expect(await screen.findByText('Already the last image.')).toBeTruthy();
    expect(screen.getByTestId('mark-current-class').dataset.labelId).toBe('4');
  });

  it('a key without a label asks to create one', async () => {
    const calls = serve();
    await openAt('/mark');
    await key('7');
    expect(await screen.findByText('Please select or create a label first.')).toBeTruthy();
    expect(classPuts(calls)).toEqual([]);
  });

  it('a refused class is put back, shown, and can be retried', async () => {
    const calls = serve({
      'PUT /api/models/5/images/103/class': { code: Errors.annotationInvalid.code, message: 'Unknown label.', status: 400 },
    });
    await openAt('/mark');
    await key('2');
    expect(await screen.findByText('Unknown label.')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('mark-save-status').dataset.status).toBe('failed'));
    await click('mark-prev');
    await waitFor(() => expect(text('mark-position')).toBe('1 / 3'));
    expect(screen.getByTestId('mark-current-class').dataset.labelId).toBe('');
    await click('mark-save-retry');
    await waitFor(() => expect(classPuts(calls)).toHaveLength(2));
    expect(classPuts(calls)[1]).toEqual(['/api/models/5/images/103/class', { labelId: 4 }]);
  });

  it('shows the guide to a first-time user and remembers it once closed; help reopens it', async () => {
    const calls = serve({
      'GET /api/user/guides': { data: { seen: [] } },
      'POST /api/user/guides': { data: { seen: ['mark-classification'] } },
    });
    await openAt('/mark');
    expect(await screen.findByTestId('mark-guide')).toBeTruthy();
    await act(async () => void fireEvent.click(await screen.findByTestId('mark-guide-close')));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ guide: 'mark-classification' }));
    await waitFor(() => expect(screen.queryByTestId('mark-guide')).toBeNull());
    await click('mark-help');
    expect(await screen.findByTestId('mark-guide')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);
  });

  it("sends a model to its own type's labeling route", async () => {
    serve();
    renderPage(<DetectionRoute />, '/mark/detection?imageId=102');
    expect(await location()).toBe('/mark?imageId=102');
  });
});
