import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { AuthPaths, Errors, type AdminAccount, type ProfileData } from '@loupe/contracts';
import i18n from '@/i18n';
import UserManagement from '@/pages/admin/UserManagement';
import { click, mockServer, renderPage, type } from '@/pages/auth/test/harness';
import ChangePassword from '../ChangePassword';
import Profile from '../Profile';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const profile: ProfileData = {
  name: 'Ada Lovelace',
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: 'Analytical',
  companyId: 'AE-1',
  mobile: '+44 20 7946 0958',
  landline: '',
  email: 'ada@example.com',
  account: 'ada@example.com',
  language: 'en' as ProfileData['language'],
  trainingPriority: 3,
  downloadPermission: false,
  hasPassword: true,
};

describe('profile', () => {
  it('shows read-only facts and refuses a malformed landline', async () => {
    const calls = mockServer({ [`GET ${AuthPaths.profile}`]: { data: profile } });
    renderPage(<Profile />, '/profile');
    expect((await screen.findByTestId('profile-email')).textContent).toBe('ada@example.com');
    expect(screen.getByTestId('profile-trainingPriority').textContent).toBe('3');
    expect(screen.getByTestId('profile-downloadPermission').textContent).toBe('No');
    type('profile-landline', '12-ab');
    await click('profile-submit');
    expect(await screen.findByText('Please enter a valid landline number.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });

  it('saves the edited fields with PUT /api/profile', async () => {
    const calls = mockServer({
      [`GET ${AuthPaths.profile}`]: { data: profile },
      [`PUT ${AuthPaths.profile}`]: { data: { ...profile, landline: '(030) 1234567' } },
    });
    renderPage(<Profile />, '/profile');
    await screen.findByTestId('profile-landline');
    type('profile-landline', ' (030) 1234567 ');
    await click('profile-submit');
    await waitFor(() => expect(calls.some((c) => c.method === 'PUT')).toBe(true));
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ landline: '(030) 1234567' });
    expect(i18n.language).toBe('en');
  });
});

describe('change password', () => {
  it('refuses a mismatched confirmation and a non-alphanumeric password', async () => {
    const calls = mockServer({});
    renderPage(<ChangePassword />, '/changePassword');
    type('change-password-old', 'oldpass1');
    type('change-password-password', 'new pass!');
    expect(await screen.findByText('The password may contain only letters and digits.')).toBeTruthy();
    type('change-password-password', 'newpass1');
    type('change-password-confirmPassword', 'newpass2');
    expect(await screen.findByText('The passwords do not match.')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it("shows the server's answer for a wrong current password", async () => {
    const message = 'The current password is incorrect.';
    const calls = mockServer({
      [`POST ${AuthPaths.changePassword}`]: { code: Errors.wrongOldPassword.code, message, status: 400 },
    });
    renderPage(<ChangePassword />, '/changePassword');
    type('change-password-old', 'oldpass1');
    type('change-password-password', 'newpass1');
    type('change-password-confirmPassword', 'newpass1');
    await click('change-password-submit');
    expect((await screen.findByTestId('change-password-error')).textContent).toContain(message);
    expect(calls[0]?.body).toEqual({ oldPassword: 'oldpass1', password: 'newpass1', confirmPassword: 'newpass1' });
  });
});

describe('account review', () => {
  const pending: AdminAccount = {
    id: 7,
    email: 'bob@example.com',
    firstName: 'Bob',
    lastName: 'Builder',
    company: 'Bricks',
    phone: '+49 30 1234567',
    country: 'DE',
    jobTitle: 'Lead',
    status: 'pending' as AdminAccount['status'],
    role: '0',
    createdAt: '2026-01-01T10:00:00.000Z',
  };

  it('lists pending accounts first and approves one, then refreshes', async () => {
    const calls = mockServer({
      [`GET ${AuthPaths.adminAccounts}`]: { data: [pending] },
      [`POST /api/admin/accounts/7/approve`]: { data: { ...pending, status: 'approved' } },
    });
    renderPage(<UserManagement />, '/userManagement');
    await screen.findByTestId('approve-bob@example.com');
    expect(calls[0]?.url).toBe(`${AuthPaths.adminAccounts}?status=pending`);
    expect(screen.getByText('Germany')).toBeTruthy();
    await click('approve-bob@example.com');
    await waitFor(() => expect(calls.filter((c) => c.method === 'GET')).toHaveLength(2));
    expect(calls.some((c) => c.method === 'POST' && c.url === '/api/admin/accounts/7/approve')).toBe(true);
  });

  it('asks before rejecting', async () => {
    const calls = mockServer({
      [`GET ${AuthPaths.adminAccounts}`]: { data: [pending] },
      [`POST /api/admin/accounts/7/reject`]: { data: { ...pending, status: 'rejected' } },
    });
    renderPage(<UserManagement />, '/userManagement');
    await click((await screen.findByTestId('reject-bob@example.com')).dataset.testid!);
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await click((await screen.findByTestId('reject-confirm')).dataset.testid!);
    await waitFor(() => expect(calls.some((c) => c.url === '/api/admin/accounts/7/reject')).toBe(true));
  });
});
