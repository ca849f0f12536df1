import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { ADMIN_MENUS, USER_MENUS } from '@loupe/contracts';
import { useSession, type SessionUser } from '@/stores/session';
import { resetReloginThrottle } from '@/api/reactions';
import { Providers } from './Providers';
import { App } from './App';

const user = (role: string): SessionUser => ({
  email: 'ada@example.com', username: 'Ada', role, roleName: role === '1' ? 'admin' : 'user',
  menus: role === '1' ? [...ADMIN_MENUS, ...USER_MENUS] : USER_MENUS, isprivate: false, companyName: 'Acme',
  language: 'en', user_info: { user_id: 1, email: 'ada@example.com', name: 'Ada', created_at: '', phone: '', company: 'Acme' },
});

type Replies = Record<string, { code: number; message?: string; data?: unknown }>;

function serve(replies: Replies) {
  vi.stubGlobal('fetch', vi.fn(async (input: RequestInfo | URL) => {
    const path = String(input).split('?')[0]!;
    const body = replies[path] ?? { code: 20004, message: 'Not found.' };
    return new Response(JSON.stringify({ message: '', data: null, ...body }));
  }));
}

function open(path: string) {
  window.history.replaceState(null, '', path);
  render(<Providers><App /></Providers>);
}

const config = { '/api/config': { code: 0, data: { deployment: 'cloud', oidc: false, version: '1' } } };

beforeEach(() => resetReloginThrottle());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  act(() => useSession.setState({ token: null, user: null }));
});

describe('shell', () => {
  it('sends a signed-out visitor of a layout page to /signin-home', async () => {
    serve(config);
    open('/dashboard');
    await waitFor(() => expect(window.location.pathname).toBe('/signin-home'), { timeout: 8000 });
  });

  it('shows the layout with the user menu, sidebar and an administrator back link', async () => {
    useSession.setState({ token: 't', user: user('1') });
    serve({ ...config, '/api/vue-admin-template/user/info': { code: 500 } });
    open('/profile');
    expect(await screen.findByTestId('sidebar', {}, { timeout: 8000 })).toBeTruthy();
    expect(screen.getByTestId('user-menu').textContent).toContain('ada@example.com');
    expect(screen.getByTestId('back-link').getAttribute('href')).toBe('/dashboard');
    expect(screen.getByTestId('copyright')).toBeTruthy();
  });

  it('opens the relogin dialog on a lost session and signs out on confirm', async () => {
    useSession.setState({ token: 't', user: user('0') });
    serve({ ...config, '/api/vue-admin-template/user/info': { code: 99993, message: 'Signed in elsewhere' } });
    open('/usage');
    expect((await screen.findByTestId('relogin-modal', {}, { timeout: 8000 })).textContent).toBe('Signed in elsewhere');
    fireEvent.click(screen.getByTestId('relogin-confirm'));
    await waitFor(() => expect(useSession.getState().token).toBeNull(), { timeout: 8000 });
    await waitFor(() => expect(window.location.pathname).toBe('/signin'), { timeout: 8000 });
  });
});
