import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '@/stores/session';
import { useProject } from '@/stores/project';
import { setLanguage } from '@/i18n';
import { api, ApiError } from './client';
import { setFeedbackPort, useRelogin, type ActionNotice } from './feedback';
import { claimReloginSlot, reactionOf, resetReloginThrottle } from './reactions';

const notices: ActionNotice[] = [];
const fetchMock = vi.fn<typeof fetch>();

function reply(code: number, data: unknown = null, message = 'server says') {
  fetchMock.mockResolvedValueOnce(new Response(JSON.stringify({ code, message, data }), { status: code === 0 ? 200 : 400 }));
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

beforeEach(() => {
  notices.length = 0;
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
  setFeedbackPort({ notice: (n) => notices.push(n), navigate: () => undefined });
  resetReloginThrottle();
  useRelogin.setState({ open: false, message: '' });
  useSession.setState({ token: null, user: null });
  useProject.setState({ project: null });
});
afterEach(() => vi.unstubAllGlobals());

describe('api client', () => {
  it('resolves with data and sends Language and X-Token headers', async () => {
    useSession.setState({ token: 'tok' });
    await setLanguage('de');
    reply(0, { ok: 1 });
    await expect(api.get('/api/x', { params: { a: 1, b: undefined } })).resolves.toEqual({ ok: 1 });
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe('/api/x?a=1');
    expect(init?.headers).toMatchObject({ Language: 'de', 'X-Token': 'tok' });
    await setLanguage('en');
  });

  it('omits X-Token without a session and form-encodes when asked', async () => {
    reply(0, null);
    await api.post('/api/email_or_phone/login', { email: 'a@b.c', code: '123456' }, { form: true });
    const init = fetchMock.mock.calls[0]![1]!;
    expect(init.headers).not.toHaveProperty('X-Token');
    expect(init.headers).toMatchObject({ 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(String(init.body)).toBe('email=a%40b.c&code=123456');
  });

  it('rejects ordinary errors to the caller without showing anything', async () => {
    reply(7304, { field: 'x' }, 'nope');
    const error = await failure(api.put('/api/x', {}));
    expect(error).toMatchObject({ code: 7304, message: 'nope', data: { field: 'x' }, handled: false });
    reply(10001);
    expect((await failure(api.post('/api/login', {}))).handled).toBe(false);
    expect(notices).toEqual([]);
  });

  it('passes 500 through and keeps 99991 silent', async () => {
    reply(500);
    expect(await failure(api.get('/api/x'))).toMatchObject({ code: 500, handled: false });
    reply(99991);
    expect(await failure(api.get('/api/x'))).toMatchObject({ code: 99991, handled: true });
    expect(notices).toEqual([]);
    expect(useRelogin.getState().open).toBe(false);
  });

  it('offers the step each code asks for', async () => {
    useProject.setState({ project: { id: '1', name: 'p', code: 'c', type: 'OCR', sidebarType: 8, projectStatus: 'no' } });
    for (const code of [9002, 8206, 8208, 80066, 8006, 8001, 8005, 8008]) {
      reply(code);
      expect((await failure(api.get('/api/x'))).handled, String(code)).toBe(true);
    }
    expect(notices.map((n) => n.to)).toEqual([
      '/train/ocr', '/position', '/position', '/train/ocr', '/train/ocr', '/mark/ocr', '/gallery', undefined,
    ]);
    expect(notices[7]!.message).toBe('server says');
  });

  it('lets silent callers handle errors but still signs out on a lost session', async () => {
    reply(9002);
    expect((await failure(api.get('/api/x', { silent: true }))).handled).toBe(false);
    expect(notices).toEqual([]);
    reply(99993);
    await failure(api.get('/api/x', { silent: true }));
    expect(useRelogin.getState().open).toBe(true);
  });

  it('opens the relogin dialog at most once per 10 s', async () => {
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    reply(99993);
    reply(99990);
    await failure(api.get('/api/a'));
    useRelogin.getState().close();
    await failure(api.get('/api/b'));
    expect(useRelogin.getState().open).toBe(false);
    now.mockReturnValue(1_010_000);
    reply(99990);
    await failure(api.get('/api/c'));
    expect(useRelogin.getState().open).toBe(true);
    now.mockRestore();
  });

  it('maps codes to the contract reactions', () => {
    expect(reactionOf(500)).toBe('passThrough');
    expect(reactionOf(12345)).toBe('reject');
    expect(reactionOf(8008)).toBe('contactSales');
    expect(claimReloginSlot(0)).toBe(true);
    expect(claimReloginSlot(9_999)).toBe(false);
    expect(claimReloginSlot(10_000)).toBe(true);
  });

  it('reports a network failure as an ApiError', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('offline'));
    expect(await failure(api.get('/api/x'))).toMatchObject({ code: -1 });
    fetchMock.mockResolvedValueOnce(new Response('<html>', { status: 502 }));
    expect(await failure(api.get('/api/x'))).toMatchObject({ code: 502 });
  });
});
