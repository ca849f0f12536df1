import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { AuthPaths, Errors, type AdminAccount, type OutboxMail, type OutboxPage } from '@loupe/contracts';
import { mockServer, renderPage } from '@/pages/auth/test/harness';
import UserManagement from './UserManagement';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const account = (over: Partial<AdminAccount> = {}): AdminAccount => ({
  id: 7,
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: 'Analytical',
  phone: '',
  country: 'GB',
  jobTitle: '',
  status: 'approved',
  role: '0',
  createdAt: '2026-11-27T10:00:00.000Z',
  downloadPermission: false,
  trainingPriority: 0,
  ...over,
});

const mail: OutboxMail = {
  id: 3,
  to: 'ada@example.com',
  subject: 'Activate your Loupe account',
  text: 'Hello Ada,\nopen http://loupe.test/registered/check?token=abc',
  link: 'http://loupe.test/registered/check?token=abc',
  createdAt: '2026-11-27T10:00:00.000Z',
};
const outboxPage = (over: Partial<OutboxPage> = {}): OutboxPage => ({ items: [mail], total: 1, page: 1, pageSize: 20, transport: 'outbox', ...over });

const settingsPath = AuthPaths.adminAccountSettings.replace(':id', '7');
const resendPath = AuthPaths.adminOutboxResend.replace(':id', '3');
const query = (url: string) => Object.fromEntries(new URL(url, 'http://x').searchParams);

describe('/userManagement accounts', () => {
  it('searches on the server and sets download permission and training priority within the bounds', async () => {
    const calls = mockServer({
      [`GET ${AuthPaths.adminAccounts}`]: { data: [account()] },
      [`PUT ${settingsPath}`]: { data: account({ downloadPermission: true }) },
    });
    renderPage(<UserManagement />, '/userManagement');
    const search = within(await screen.findByTestId('users-search')).getByRole('searchbox');
    fireEvent.change(search, { target: { value: '  Analytical ' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(calls.some((c) => c.method === 'GET' && query(c.url).q === 'Analytical')).toBe(true));
    expect(query(calls.at(-1)!.url)).toEqual({ status: 'pending', q: 'Analytical' });

    await act(async () => {
      fireEvent.click(await screen.findByTestId('download-ada@example.com'));
    });
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ downloadPermission: true }));
    expect(await screen.findByText('Saved the settings of ada@example.com.')).toBeTruthy();

    const priority = screen.getByTestId('priority-ada@example.com');
    fireEvent.change(priority, { target: { value: '4' } });
    fireEvent.blur(priority);
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toContainEqual({ trainingPriority: 4 }));
    // Above the server's bound: the field clamps it to 10, never sends 42.
    fireEvent.change(priority, { target: { value: '42' } });
    fireEvent.blur(priority);
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toContainEqual({ trainingPriority: 10 }));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).not.toContainEqual({ trainingPriority: 42 });
    // Back to the value the (not yet refetched) list still shows: that is a change too, and is saved.
    fireEvent.change(priority, { target: { value: '0' } });
    fireEvent.blur(priority);
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toContainEqual({ trainingPriority: 0 }));
  });

  it("shows the server's refusal of a setting", async () => {
    const message = 'You do not have permission to do this.';
    mockServer({
      [`GET ${AuthPaths.adminAccounts}`]: { data: [account()] },
      [`PUT ${settingsPath}`]: { status: 403, code: Errors.forbidden.code, message },
    });
    renderPage(<UserManagement />, '/userManagement');
    await act(async () => {
      fireEvent.click(await screen.findByTestId('download-ada@example.com'));
    });
    expect(await screen.findByText(message)).toBeTruthy();
  });
});

describe('/userManagement?tab=outbox', () => {
  it('says mails wait here, opens a mail, copies its link and resends it', async () => {
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    vi.stubGlobal('isSecureContext', true);
    const calls = mockServer({
      [`GET ${AuthPaths.adminOutboxPage}`]: { data: outboxPage() },
      [`POST ${resendPath}`]: { data: { freshLink: true } },
    });
    renderPage(<UserManagement />, '/userManagement?tab=outbox');
    expect((await screen.findByTestId('outbox-transport-outbox')).textContent).toContain('Mails are not sent: no SMTP server is configured.');
    const search = within(screen.getByTestId('outbox-search')).getByRole('searchbox');
    fireEvent.change(search, { target: { value: 'ADA@' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(calls.some((c) => query(c.url).q === 'ADA@' && query(c.url).page === '1')).toBe(true));

    await act(async () => {
      fireEvent.click((await screen.findAllByTestId('outbox-open'))[0]!);
    });
    expect((await screen.findByTestId('outbox-mail-text')).textContent).toBe(mail.text);
    await act(async () => {
      fireEvent.click(screen.getByTestId('outbox-copy-dialog'));
    });
    expect(writeText).toHaveBeenCalledWith(mail.link);
    expect(await screen.findByText('Link copied to the clipboard.')).toBeTruthy();

    await act(async () => {
      fireEvent.click(screen.getByTestId('outbox-resend-dialog'));
    });
    expect(await screen.findByText('The old link had expired: ada@example.com was sent a new activation link.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url.split('?')[0])).toEqual([resendPath]);
  });

  it('says so when SMTP delivers, and shows a refused resend', async () => {
    const message = 'The link in this mail no longer works.';
    mockServer({
      [`GET ${AuthPaths.adminOutboxPage}`]: { data: outboxPage({ transport: 'smtp' }) },
      [`POST ${resendPath}`]: { status: 409, code: Errors.mailLinkDead.code, message },
    });
    renderPage(<UserManagement />, '/userManagement?tab=outbox');
    expect((await screen.findByTestId('outbox-transport-smtp')).textContent).toContain('Mails are sent through SMTP.');
    await act(async () => {
      fireEvent.click((await screen.findAllByTestId('outbox-resend'))[0]!);
    });
    expect(await screen.findByText(message)).toBeTruthy();
  });
});
