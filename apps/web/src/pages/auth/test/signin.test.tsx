import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { AuthPaths, Errors, type LoginData } from '@loupe/contracts';
import { useSession } from '@/stores/session';
import { authPages } from '../index';
import SigninEmailPassword from '../signin/SigninEmailPassword';
import SigninVerify from '../signin/SigninVerify';
import SignInHome from '../signin/SignInHome';
import { click, location, mockServer, renderPage, type } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useSession.getState().clear();
});

const loginData = (role: string): LoginData => ({
  token: 'tok-1',
  username: 'Ada Lovelace',
  email: 'ada@example.com',
  companyName: 'Analytical',
  isprivate: false,
  role,
  roleName: role === '1' ? 'admin' : 'user',
  language: 'en' as LoginData['language'],
  menus: [],
  user_info: { user_id: 1, email: 'ada@example.com', name: 'Ada', created_at: '', phone: '', company: 'Analytical' },
});

describe('account route keys', () => {
  it('exports every public account route of SPEC §2', () => {
    const expected = [
      '/signin', '/signin-home', '/signup', '/signupEmail', '/signupPhone', '/send-verify', '/set-password',
      '/finish-register-info', '/signinEmail', '/signinEmailPassword', '/signinVerify', '/signinPhone',
      '/signinPhonePassword', '/send-verify-phone', '/registered/check', '/registered/comfirm', '/forget',
      '/forgetjudge', '/forgetEmail', '/forgetPhone', '/forgetVerify', '/forget-set-password', '/logging',
      '/PassiveRegister',
    ];
    expect(Object.keys(authPages).sort()).toEqual([...expected].sort());
  });
});

describe('password sign-in', () => {
  const path = '/signinEmailPassword?email=ada@example.com';

  it('refuses a password shorter than 6 characters without calling the server', async () => {
    const calls = mockServer({});
    renderPage(<SigninEmailPassword />, path);
    type('signin-password', 'abc');
    await click('signin-submit');
    expect(await screen.findByText('The password must be 6 to 32 characters long.')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('refuses an empty password and a password over 32 characters', async () => {
    mockServer({});
    renderPage(<SigninEmailPassword />, path);
    await click('signin-submit');
    expect(await screen.findByText('Password is required.')).toBeTruthy();
    type('signin-password', 'a'.repeat(33));
    expect(await screen.findByText('The password must be 6 to 32 characters long.')).toBeTruthy();
  });

  it('trims the username, stores the session and sends a user to /agentList', async () => {
    const calls = mockServer({ [`POST ${AuthPaths.login}`]: { data: loginData('0') } });
    renderPage(<SigninEmailPassword />, '/signinEmailPassword?email=%20ada@example.com%20');
    type('signin-password', 'secret1');
    await click('signin-submit');
    expect(await location()).toBe('/agentList');
    expect(calls[0]?.body).toEqual({ username: 'ada@example.com', password: 'secret1' });
    expect(useSession.getState().token).toBe('tok-1');
  });

  it('sends an administrator to /dashboard', async () => {
    mockServer({ [`POST ${AuthPaths.login}`]: { data: loginData('1') } });
    renderPage(<SigninEmailPassword />, path);
    type('signin-password', 'secret1');
    await click('signin-submit');
    expect(await location()).toBe('/dashboard');
  });

  it("shows the server's message as it comes", async () => {
    const message = 'Your account is under review. We will contact you within 24 hours.';
    mockServer({ [`POST ${AuthPaths.login}`]: { code: Errors.accountUnderReview.code, message, status: 403 } });
    renderPage(<SigninEmailPassword />, path);
    type('signin-password', 'secret1');
    await click('signin-submit');
    expect((await screen.findByTestId('signin-error')).textContent).toContain(message);
    expect(useSession.getState().token).toBeNull();
  });
});

describe('code sign-in', () => {
  it('checks the email format before sending a code', async () => {
    const calls = mockServer({});
    renderPage(<SigninVerify />, '/signinVerify');
    type('signin-email', 'not-an-email');
    await click('signin-send-code');
    expect(await screen.findByText('Please enter a valid email address.')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('checks the 6-digit code format', async () => {
    const calls = mockServer({});
    renderPage(<SigninVerify />, '/signinVerify?email=ada@example.com');
    type('signin-code', '12ab');
    await click('signin-submit');
    expect(await screen.findByText('Incorrect verification code or bad code format.')).toBeTruthy();
    expect(calls).toHaveLength(0);
  });

  it('sends the code, locks the button, and signs in form-encoded', async () => {
    const calls = mockServer({
      [`POST ${AuthPaths.sendCode}`]: { data: { resendAfterS: 60 } },
      [`POST ${AuthPaths.codeLogin}`]: { data: loginData('0') },
    });
    renderPage(<SigninVerify />, '/signinVerify?email=ada@example.com');
    await click('signin-send-code');
    expect((await screen.findByTestId('signin-send-code')).textContent).toContain('Resend in 60 s');
    expect(screen.getByTestId('signin-send-code').hasAttribute('disabled')).toBe(true);
    type('signin-code', '123456');
    await click('signin-submit');
    expect(await location()).toBe('/agentList');
    expect(calls[0]?.body).toEqual({ email: 'ada@example.com' });
    expect(calls[1]?.headers['Content-Type']).toBe('application/x-www-form-urlencoded');
    expect(calls[1]?.body).toEqual({ email: 'ada@example.com', code: '123456' });
  });
});

describe('sign-in entry', () => {
  it('shows a single sign-on failure the server redirected with, in the user language', async () => {
    mockServer({ [`GET ${AuthPaths.config}`]: { data: { deployment: 'cloud', oidc: true, version: '1' } } });
    renderPage(<SignInHome />, `/signin?error=${Errors.accountUnderReview.code}`);
    expect((await screen.findByTestId('signin-error')).textContent).toContain(
      'Your account is under review. We will contact you within 24 hours.',
    );
  });

  it('offers Google only when the server has OIDC', async () => {
    mockServer({ [`GET ${AuthPaths.config}`]: { data: { deployment: 'cloud', oidc: true, version: '1' } } });
    renderPage(<SignInHome />, '/signin');
    expect(await screen.findByTestId('signin-with-google')).toBeTruthy();
    cleanup();
    mockServer({ [`GET ${AuthPaths.config}`]: { data: { deployment: 'cloud', oidc: false, version: '1' } } });
    renderPage(<SignInHome />, '/signin');
    await screen.findByTestId('signin-with-password');
    await new Promise((r) => setTimeout(r, 20));
    expect(screen.queryByTestId('signin-with-google')).toBeNull();
  });
});
