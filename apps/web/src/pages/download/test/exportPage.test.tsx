import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { PackStatusData } from '@loupe/contracts';
import i18n from '@/i18n';
import { click, renderPage, type Call } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import DownloadSDK from '../DownloadSDK';
import DownloadModel from '../DownloadModel';
import { pack, training } from './fixtures';

type Reply = { code?: number; message?: string; data?: unknown };

/** A fake API whose pack status follows a script: each status read takes the next entry, the last one stays. */
function serve(options: { statuses?: PackStatusData[]; versions?: ReturnType<typeof training>[]; packReply?: Reply } = {}) {
  const calls: Call[] = [];
  const statuses = [...(options.statuses ?? [pack({ kind: 'sdk' })])];
  const reply = (r: Reply, status = 200) => new Response(JSON.stringify({ code: r.code ?? 0, message: r.message ?? 'ok', data: r.data ?? null }), { status, headers: { 'content-type': 'application/json' } });
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    calls.push({ method, url, body: typeof init.body === 'string' ? JSON.parse(init.body) : null, headers: (init.headers ?? {}) as Record<string, string> });
    const path = url.split('?')[0];
    if (path === '/api/models/5/trainings') return reply({ data: { items: options.versions ?? [training()], total: 1 } });
    if (path === '/api/train/modelPackStatus') return reply({ data: statuses.length > 1 ? statuses.shift() : statuses[0] });
    if (method === 'POST' && path === '/api/train/modelPack') {
      const r = options.packReply ?? { data: pack({ kind: 'sdk', packStatus: 'packing', id: 3 }) };
      return reply(r, r.code ? 400 : 200);
    }
    return reply({ code: 20004, message: `no mock for ${method} ${path}` }, 404);
  });
  return calls;
}

beforeEach(() => {
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
  useSession.setState({ token: null, user: null });
});

const input = (testId: string) => screen.getByTestId(testId) as HTMLInputElement;
const setNumber = (testId: string, value: string) => fireEvent.change(input(testId), { target: { value } });
const errors = () => [...document.querySelectorAll('.ant-form-item-explain-error')].map((e) => e.textContent);

describe('export pages', () => {
  it('start from the version and check the form in the user language before sending', async () => {
    const calls = serve();
    renderPage(<DownloadSDK />, '/download/downloadSDK');
    await screen.findByTestId('pack-none');
    await waitFor(() => expect(input('export-width').value).toBe('512'));
    expect(input('export-height').value).toBe('512');
    expect(input('export-max-det').value).toBe('300');
    await act(async () => i18n.changeLanguage('de'));
    setNumber('export-width', '0');
    setNumber('export-max-det', '');
    await click('export-submit');
    await waitFor(() => expect(errors()).toEqual(['Geben Sie eine ganze Zahl größer als 0 ein.', 'Geben Sie einen Wert ein.', 'Wählen Sie einen SDK-Typ.']));
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await act(async () => i18n.changeLanguage('en'));
  });

  it('refuses a rotated-box type the version did not learn, and warns about rotated boxes on a CPU', async () => {
    const calls = serve({ versions: [training({ rotated: true })] });
    renderPage(<DownloadSDK />, '/download/downloadSDK');
    await screen.findByTestId('pack-none');
    await click('export-sdk-cpu');
    expect(await screen.findByTestId('export-rotated-hint')).toBeTruthy();
    await click('export-rotated-no');
    await click('export-submit');
    await waitFor(() => expect(errors()).toEqual(['The rotated-box type must match the one the chosen version was trained with.']));
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('exports, shows the 5–10 minute estimate while packing, then offers to download now', async () => {
    useSession.setState({ token: 'tok' });
    const calls = serve({
      statuses: [pack({ kind: 'sdk' }), pack({ kind: 'sdk', packStatus: 'packing', id: 3 }), pack({ kind: 'sdk', packStatus: 'success', id: 3, inputW: 1920, inputH: 1080, fileName: 'gears-sdk.zip', bytes: 2048 })],
    });
    renderPage(<DownloadSDK />, '/download/downloadSDK');
    await screen.findByTestId('pack-none');
    setNumber('export-width', '1920');
    setNumber('export-height', '1080');
    await click('export-sdk-gpu30');
    await click('export-submit');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ modelId: 5, trainingId: 11, kind: 'sdk', inputW: 1920, inputH: 1080, maxDet: 300, sdkType: 'gpu30', rotated: false }));
    expect((await screen.findByTestId('pack-status')).dataset.status).toBe('packing');
    expect(screen.getByTestId('pack-estimate').textContent).toContain('5 to 10 minutes');
    expect(input('export-submit').disabled).toBe(true);
    // Polled every 2 s until the pack is done; then the §4 prompt and the button.
    await waitFor(() => expect(screen.getByTestId('pack-status').dataset.status).toBe('success'), { timeout: 8000 });
    expect(await screen.findByTestId('pack-download-prompt')).toBeTruthy();
    expect(screen.getByTestId('pack-download').textContent).toContain('Download now');
    expect(calls.filter((c) => c.url.startsWith('/api/train/modelPackStatus')).every((c) => c.url.includes('modelId=5') && c.url.includes('kind=sdk'))).toBe(true);
  });

  it('shows a failed pack with its reason and re-exports on click', async () => {
    const calls = serve({ statuses: [pack({ packStatus: 'failed', id: 2, trainingId: 11, inputW: 800, inputH: 600, maxDet: 20, error: 'engine crashed' })] });
    renderPage(<DownloadModel />, '/download/downloadModel');
    expect((await screen.findByTestId('pack-status')).dataset.status).toBe('failed');
    expect(screen.getByTestId('pack-status').textContent).toContain('engine crashed');
    // A model pack is a plain ONNX file: no SDK type to choose.
    expect(screen.queryByTestId('export-sdk-type')).toBeNull();
    await waitFor(() => expect(input('export-width').value).toBe('800'));
    await click('pack-reexport');
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ modelId: 5, trainingId: 11, kind: 'model', inputW: 800, inputH: 600, maxDet: 20, rotated: false }));
  });

  it("puts the server's refusal of an input on that field", async () => {
    serve({ packReply: { code: 40008, message: 'Model export failed, please check the parameters.', data: { field: 'maxDet', reason: 'range' } } });
    renderPage(<DownloadModel />, '/download/downloadModel');
    await screen.findByTestId('pack-none');
    await waitFor(() => expect(input('export-width').value).toBe('512'));
    await click('export-submit');
    await waitFor(() => expect(errors()).toEqual(['Enter a whole number greater than 0.']));
  });

  it('tells a user without download permission to contact sales (8008)', async () => {
    serve({ statuses: [pack({ packStatus: 'failed', id: 2, trainingId: 11, inputW: 8, inputH: 6, maxDet: 2 })], packReply: { code: 8008, message: 'You have no permission to download. Please contact sales.' } });
    renderPage(<DownloadModel />, '/download/downloadModel');
    await screen.findByTestId('pack-reexport');
    await waitFor(() => expect(input('export-width').value).toBe('8'));
    await click('pack-reexport');
    expect((await screen.findByTestId('export-no-permission')).textContent).toContain('contact sales');
  });

  it('says when there is no trained version and when no model is open', async () => {
    serve({ versions: [] });
    renderPage(<DownloadModel />, '/download/downloadModel');
    expect(await screen.findByTestId('export-no-training')).toBeTruthy();
    cleanup();
    useProject.getState().setProject(null);
    renderPage(<DownloadModel />, '/download/downloadModel');
    expect(screen.getByTestId('export-no-project')).toBeTruthy();
  });
});
