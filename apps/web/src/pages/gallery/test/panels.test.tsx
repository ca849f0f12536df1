import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { Errors, type LabelData } from '@loupe/contracts';
import { click, mockServer, renderPage, type } from '@/pages/auth/test/harness';
import { useSession } from '@/stores/session';
import { useProject } from '@/stores/project';
import DownloadImage from '@/pages/download/DownloadImage';
import { LabelPanel } from '../labels/LabelPanel';
import { AutoSplitDialog } from '../split/AutoSplitDialog';

beforeEach(() => {
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

const runButton = () => screen.getByTestId('auto-split-run').closest('button')!;

describe('auto split dialog', () => {
  it('needs the confirmation tick and ratios that add up before it sends', async () => {
    const calls = mockServer({});
    renderPage(<AutoSplitDialog modelId="5" open onClose={() => undefined} />);
    expect(runButton().disabled).toBe(true);
    await click('auto-split-confirm');
    expect(runButton().disabled).toBe(false);
    fireEvent.change(screen.getByTestId('auto-split-test'), { target: { value: '30' } });
    expect((await screen.findByTestId('auto-split-problem')).textContent).toContain('100 %');
    expect(runButton().disabled).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it("sends fractions with the tick and shows the server's reason when it cannot split", async () => {
    const reason = 'Cannot split automatically: label "dent" has only 1 image(s); each label needs at least one training and one validation image.';
    const calls = mockServer({
      'POST /api/models/5/images/auto-split': { code: Errors.autoSplitLabelTooFew.code, message: reason, status: 409 },
    });
    renderPage(<AutoSplitDialog modelId="5" open onClose={() => undefined} />);
    await click('auto-split-confirm');
    await act(async () => fireEvent.click(runButton()));
    expect((await screen.findByTestId('auto-split-error')).textContent).toBe(reason);
    expect(calls[0]!.body).toEqual({ confirm: true, ratios: { train: 0.7, valid: 0.2, test: 0.1 }, includeUnlabeled: false });
  });
});

describe('label panel', () => {
  const labels: LabelData[] = [{ id: 3, name: 'dent', color: '#ff0000', imageCount: 4 }];

  it("shows the server's refusal of a new label on the name field", async () => {
    const message = 'Label count exceeded: a model can have at most 100 labels.';
    const calls = mockServer({
      'GET /api/models/5/labels': { data: labels },
      'POST /api/models/5/labels': { code: Errors.labelCountExceeded.code, message, status: 409 },
    });
    renderPage(<LabelPanel modelId="5" />);
    await screen.findByTestId('label-row-3');
    type('label-new-name', '  scratch ');
    await click('label-add');
    const error = await screen.findByText(message);
    expect(error.closest('.ant-form-item')?.querySelector('[data-testid="label-new-name"]')).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')?.body).toMatchObject({ name: 'scratch' });
  });

  it('renames on Enter and shows "label name already exists" under the row', async () => {
    const message = 'A label with this name already exists.';
    const calls = mockServer({
      'GET /api/models/5/labels': { data: labels },
      'PUT /api/models/5/labels/3': { code: Errors.labelNameExists.code, message, status: 409 },
    });
    renderPage(<LabelPanel modelId="5" />);
    await screen.findByTestId('label-row-3');
    type('label-name-3', 'crack');
    fireEvent.keyDown(screen.getByTestId('label-name-3'), { key: 'Enter', code: 'Enter', keyCode: 13 });
    expect((await screen.findByTestId('label-error-3')).textContent).toBe(message);
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'crack' });
  });

  it('offers the next palette colour for a new label once the labels are known', async () => {
    mockServer({ 'GET /api/models/5/labels': { data: [...labels, { id: 4, name: 'crack', color: '#00ff00', imageCount: 0 }] } });
    renderPage(<LabelPanel modelId="5" />);
    await screen.findByTestId('label-row-4');
    // Third palette colour #4363d8.
    await waitFor(() => expect(screen.getByTestId('label-new-color').innerHTML).toContain('rgb(67, 99, 216)'));
  });

  it('deletes a label only after confirmation', async () => {
    const calls = mockServer({
      'GET /api/models/5/labels': { data: labels },
      'DELETE /api/models/5/labels/3': { data: { deleted: 1 } },
    });
    renderPage(<LabelPanel modelId="5" />);
    await screen.findByTestId('label-row-3');
    await click('label-delete-3');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await act(async () => fireEvent.click(await screen.findByTestId('label-delete-confirm-3')));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
  });
});

describe('dataset export', () => {
  it('asks for the chosen format (sending X-Token), then hands the ZIP to the browser by a link without any token', async () => {
    useSession.setState({ token: 'tok' });
    const fetchMock = vi.fn(async (_url: string) => new Response('PK', { headers: { 'content-type': 'application/zip' } }));
    vi.stubGlobal('fetch', fetchMock);
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.getAttribute('href') ?? '');
    });
    renderPage(<DownloadImage />, '/download/downloadImage');
    await click('export-format-yolo');
    await click('export-download');
    // The files cookie signs the link in; a token in it would end up in history and logs.
    await waitFor(() => expect(clicked).toEqual(['/api/models/5/download/images?format=yolo']));
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/models/5/download/images?format=yolo');
    expect((fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].headers).toMatchObject({ 'X-Token': 'tok' });
    useSession.setState({ token: null });
  });

  it("shows the server's refusal instead of downloading", async () => {
    vi.stubGlobal('fetch', async () =>
      new Response(JSON.stringify({ code: Errors.noValidAnnotations.code, message: 'Nothing to export.', data: null }), {
        status: 409,
        headers: { 'content-type': 'application/json' },
      }),
    );
    renderPage(<DownloadImage />, '/download/downloadImage');
    await click('export-download');
    expect((await screen.findByTestId('export-error')).textContent).toBe('Nothing to export.');
  });
});
