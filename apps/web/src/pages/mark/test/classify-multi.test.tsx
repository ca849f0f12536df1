import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Errors } from '@loupe/contracts';
import { click, mockServer, renderPage, type Call } from '@/pages/auth/test/harness';
import { model } from '@/pages/models/test/fixtures';
import { useProject } from '@/stores/project';
import { markPages } from '..';
import { image, imageList, labels, openModel } from './fixtures';

const ClassifyRoute = markPages['/mark']!;

beforeEach(() => openModel('classification'));
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

type Route = { data?: unknown; code?: number; message?: string; status?: number };

const multiImages = [image(103, { classLabelIds: [], noClass: false }), image(102, { classLabelIds: [3, 4], labeled: true }), image(101, { classLabelIds: [], noClass: true, labeled: true })];

function serve(multiLabel: boolean, extra: Record<string, Route> = {}) {
  return mockServer({
    'GET /api/user/guides': { data: { seen: ['mark-classification'] } },
    'GET /api/models/5': { data: model({ id: 5, type: 'classification', multiLabel }) },
    'GET /api/models/5/labels': { data: labels },
    'GET /api/models/5/images': { data: imageList(multiLabel ? multiImages : [image(103), image(102, { classLabelId: 4, labeled: true }), image(101)]) },
    ...extra,
  });
}

/** The server keeps the sets it is sent (PUT …/classes answers the set), on top of serve(). */
function echoSets() {
  const recorded = globalThis.fetch;
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const res = await recorded(url, init);
    const m = /images\/(\d+)\/classes$/.exec(url);
    if (init.method !== 'PUT' || !m) return res;
    const body = JSON.parse(String(init.body)) as { labelIds: number[]; none: boolean };
    const data = { imageId: Number(m[1]), classLabelIds: body.labelIds, noClass: body.none, labeled: body.labelIds.length > 0 || body.none };
    return new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
}

const text = (testId: string) => screen.getByTestId(testId).textContent;
const puts = (calls: Call[]) => calls.filter((c) => c.method === 'PUT').map((c) => [c.url, c.body]);
const key = (k: string) => act(async () => void fireEvent.keyDown(window, { key: k }));
const current = () => screen.getByTestId('mark-current-class').dataset;

async function openAt(path: string) {
  renderPage(<ClassifyRoute />, path);
  await screen.findByTestId('mark-image');
}

describe('multi-label classification labeling', () => {
  it('keys 1–9 toggle classes and stay; Enter opens the next image; every change saves the whole set', async () => {
    const calls = serve(true);
    echoSets();
    await openAt('/mark');
    await waitFor(() => expect(screen.getByTestId('mark-page').dataset.multiLabel).toBe('true'));
    expect(screen.getByTestId('mark-classes').dataset.multi).toBe('true');

    await key('1');
    await key('2');
    await key('1');
    expect(text('mark-position')).toBe('1 / 3');
    await waitFor(() => expect(puts(calls)).toHaveLength(3));
    await waitFor(() => expect(screen.getByTestId('mark-save-status').dataset.status).toBe('saved'));
    expect(current().labelIds).toBe('4');
    expect(puts(calls).map(([, body]) => body)).toEqual([
      { labelIds: [3], none: false },
      { labelIds: [3, 4], none: false },
      { labelIds: [4], none: false },
    ]);
    expect(puts(calls)[0]![0]).toBe('/api/models/5/images/103/classes');

    await key('Enter');
    await waitFor(() => expect(text('mark-position')).toBe('2 / 3'));
    expect(current().labelIds).toBe('3,4');
    expect(screen.getByTestId('mark-class-3').dataset.active).toBe('true');
    expect(screen.getByTestId('mark-class-4').dataset.active).toBe('true');
  });

  it('0 clears, N confirms none of these (and a class replaces it); arrows still move', async () => {
    const calls = serve(true, {
      'PUT /api/models/5/images/102/classes': { data: { imageId: 102, classLabelIds: [], noClass: false, labeled: false } },
      'PUT /api/models/5/images/101/classes': { data: { imageId: 101, classLabelIds: [4], noClass: false, labeled: true } },
    });
    await openAt('/mark?imageId=102');
    await key('0');
    await waitFor(() => expect(current().labelIds).toBe(''));
    expect(puts(calls)).toEqual([['/api/models/5/images/102/classes', { labelIds: [], none: false }]]);

    await key('ArrowRight');
    await waitFor(() => expect(text('mark-position')).toBe('3 / 3'));
    expect(current().none).toBe('true');
    expect(screen.getByTestId('mark-class-none').dataset.active).toBe('true');
    await click('mark-class-4');
    await waitFor(() => expect(puts(calls)).toHaveLength(2));
    expect(puts(calls)[1]).toEqual(['/api/models/5/images/101/classes', { labelIds: [4], none: false }]);
    expect(current().none).toBe('false');
    await key('n');
    await waitFor(() => expect(puts(calls)).toHaveLength(3));
    expect(puts(calls)[2]![1]).toEqual({ labelIds: [], none: true });
  });

  it('a refused set is put back and can be retried', async () => {
    const calls = serve(true, {
      'PUT /api/models/5/images/103/classes': { code: Errors.labelNotInModel.code, message: 'Label #3 does not belong to this model.', status: 400 },
    });
    await openAt('/mark');
    await key('1');
    expect(await screen.findByText('Label #3 does not belong to this model.')).toBeTruthy();
    // (The refused set was [3]; the retry sends it again.)
    await waitFor(() => expect(screen.getByTestId('mark-save-status').dataset.status).toBe('failed'));
    expect(current().labelIds).toBe('');
    await click('mark-save-retry');
    await waitFor(() => expect(puts(calls)).toHaveLength(2));
    expect(puts(calls)[1]![1]).toEqual({ labelIds: [3], none: false });
  });

  it('switches the model to several classes per image and reloads the images with their sets', async () => {
    const calls = serve(false, { 'PUT /api/models/5/classification-mode': { data: { multiLabel: true, dataVersion: 4 } } });
    await openAt('/mark?imageId=102');
    await waitFor(() => expect(screen.getByTestId('mark-multi-label').getAttribute('aria-checked')).toBe('false'));
    expect(current().labelId).toBe('4');
    // The server now answers the images with their sets.
    serveAgain(calls, true);
    await click('mark-multi-label');
    await waitFor(() => expect(screen.getByTestId('mark-page').dataset.multiLabel).toBe('true'));
    await waitFor(() => expect(current().labelIds).toBe('3,4'));
    expect(text('mark-position')).toBe('2 / 3');
  });

  it('a refused switch back to one class shows the server’s message and stays multi-label', async () => {
    serve(true, {
      'PUT /api/models/5/classification-mode': { code: Errors.multiLabelInUse.code, message: 'Images with more than one class: img102.png.', status: 409 },
    });
    await openAt('/mark');
    await waitFor(() => expect(screen.getByTestId('mark-multi-label').getAttribute('aria-checked')).toBe('true'));
    await click('mark-multi-label');
    expect(await screen.findByText('Images with more than one class: img102.png.')).toBeTruthy();
    expect(screen.getByTestId('mark-multi-label').getAttribute('aria-checked')).toBe('true');
    expect(screen.getByTestId('mark-page').dataset.multiLabel).toBe('true');
  });
});

/** Replaces the mocked server's answers (the calls recorded so far stay in `calls`). */
function serveAgain(calls: Call[], multiLabel: boolean) {
  const next = serve(multiLabel, { 'PUT /api/models/5/classification-mode': { data: { multiLabel: true, dataVersion: 4 } } });
  next.unshift(...calls);
}
