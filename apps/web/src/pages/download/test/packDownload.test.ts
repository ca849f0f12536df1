import { afterEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '@/stores/session';
import { packFileUrl, downloadPack } from '../export/packDownload';
import { pack } from './fixtures';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useSession.setState({ token: null, user: null });
});

describe('pack file', () => {
  it('comes from the download route when storage gives no URL (SPEC §7)', () => {
    expect(packFileUrl(pack({ packStatus: 'success', id: 7, inputW: 1920, inputH: 1080 }))).toEqual({ url: '/api/train/download/7/1920/1080', withToken: true });
  });

  it('comes from modelUrl when set; only a same-origin one carries the token', () => {
    expect(packFileUrl(pack({ packStatus: 'success', id: 7, inputW: 1, inputH: 1, modelUrl: 'https://cdn.example/m.onnx' }))).toEqual({ url: 'https://cdn.example/m.onnx', withToken: false });
    expect(packFileUrl(pack({ packStatus: 'success', id: 7, inputW: 1, inputH: 1, modelUrl: '/files/m.onnx' }))).toEqual({ url: '/files/m.onnx', withToken: true });
  });

  it('does not exist before the pack succeeded', () => {
    expect(packFileUrl(pack({ packStatus: 'packing', id: 7, inputW: 1, inputH: 1 }))).toBeNull();
  });

  it('is opened with the X-Token header, then handed to a link that the files cookie signs in (no blob in memory)', async () => {
    useSession.setState({ token: 'tok' });
    const fetchMock = vi.fn(async () => new Response(new Blob(['onnx']), { headers: { 'content-type': 'application/octet-stream', 'content-disposition': 'attachment; filename="m.onnx"' } }));
    vi.stubGlobal('fetch', fetchMock);
    const created = vi.fn(() => 'blob:x');
    URL.createObjectURL = created;
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      // The browser names the file from Content-Disposition (or follows the server's redirect to signed storage).
      expect(this.download).toBe('');
      expect(this.getAttribute('href')).toBe('/api/train/download/7/640/480');
    });
    await downloadPack(pack({ packStatus: 'success', id: 7, inputW: 640, inputH: 480 }));
    expect(fetchMock).toHaveBeenCalledWith('/api/train/download/7/640/480', expect.objectContaining({ headers: expect.objectContaining({ 'X-Token': 'tok' }) }));
    expect(created).not.toHaveBeenCalled();
    expect(click).toHaveBeenCalledOnce();
  });

  it('rejects with the envelope of a refusal', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response(JSON.stringify({ code: 40010, message: 'not ready', data: null }), { status: 409, headers: { 'content-type': 'application/json' } })));
    await expect(downloadPack(pack({ packStatus: 'success', id: 7, inputW: 640, inputH: 480 }))).rejects.toMatchObject({ code: 40010, message: 'not ready' });
  });
});
