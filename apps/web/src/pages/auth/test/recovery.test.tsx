import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { AuthPaths, Errors, type UserInfoData } from '@loupe/contracts';
import { useSession } from '@/stores/session';
import ForgetSetPassword from '../forgot/ForgetSetPassword';
import Logging from '../passive/Logging';
import SignupPhone from '../signup/SignupPhone';
import { click, location, mockServer, renderPage, type } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useSession.getState().clear();
});

describe('reset link', () => {
  it('says so when the link is no longer valid', async () => {
    const message = 'The reset link is invalid or has expired.';
    mockServer({ [`POST ${AuthPaths.resetCheck}`]: { code: Errors.resetLinkInvalid.code, message, status: 400 } });
    renderPage(<ForgetSetPassword />, '/forget-set-password?token=used');
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.queryByTestId('reset-password')).toBeNull();
  });

  it('sets the new password with the token and returns to sign-in', async () => {
    const calls = mockServer({ [`POST ${AuthPaths.resetCheck}`]: {}, [`POST ${AuthPaths.reset}`]: {} });
    renderPage(<ForgetSetPassword />, '/forget-set-password?token=t1');
    await screen.findByTestId('reset-password');
    type('reset-password', 'newpass1');
    type('reset-confirmPassword', 'newpass1');
    await click('reset-submit');
    expect(await location()).toBe('/signin');
    expect(calls[1]?.body).toEqual({ token: 't1', password: 'newpass1', confirmPassword: 'newpass1' });
  });
});

describe('single sign-on landing', () => {
  const info = (companyName: string) =>
    ({
      name: 'Ada',
      avatar: '',
      email: 'ada@example.com',
      companyName,
      isprivate: false,
      salesman: '',
      role: '0',
      roleName: 'user',
      language: 'en',
      menus: [],
      user_info: { user_id: 1, email: 'ada@example.com', name: 'Ada', created_at: '', phone: '', company: companyName },
      downloadPermission: false,
      trainingPriority: 0,
    }) as unknown as UserInfoData;

  it('exchanges the one-time code by POST, stores the token, loads the user and goes home', async () => {
    const calls = mockServer({
      [`POST ${AuthPaths.oidcExchange}`]: { data: { token: 'sso-1' } },
      [`GET ${AuthPaths.userInfo}`]: { data: info('Analytical') },
    });
    renderPage(<Logging />, '/logging?code=once-1');
    expect(await location()).toBe('/agentList');
    expect(calls[0]?.url).toBe(AuthPaths.oidcExchange);
    expect(calls[0]?.body).toEqual({ code: 'once-1' });
    expect(calls[1]?.url).toBe(`${AuthPaths.userInfo}?token=sso-1`);
    expect(calls[1]?.headers['X-Token']).toBe('sso-1');
    expect(calls).toHaveLength(2);
    expect(useSession.getState().token).toBe('sso-1');
    expect(useSession.getState().user?.email).toBe('ada@example.com');
  });

  it('shows the refusal of a spent or expired code and stores nothing', async () => {
    const message = 'Single sign-on failed. Please try again.';
    mockServer({ [`POST ${AuthPaths.oidcExchange}`]: { code: Errors.oidcFailed.code, message, status: 400 } });
    renderPage(<Logging />, '/logging?code=spent');
    expect(await screen.findByText(message)).toBeTruthy();
    expect(useSession.getState().token).toBeNull();
  });

  it('sends an account without a company to finish its registration', async () => {
    mockServer({ [`POST ${AuthPaths.oidcExchange}`]: { data: { token: 'sso-2' } }, [`GET ${AuthPaths.userInfo}`]: { data: info('') } });
    renderPage(<Logging />, '/logging?code=once-2');
    expect(await location()).toBe('/finish-register-info');
  });

  it('shows the error it was given and a way back', async () => {
    const calls = mockServer({});
    renderPage(<Logging />, '/logging?error=Single%20sign-on%20failed.');
    expect(await screen.findByText('Single sign-on failed.')).toBeTruthy();
    expect(screen.getByTestId('logging-back')).toBeTruthy();
    expect(calls).toHaveLength(0);
    expect(useSession.getState().token).toBeNull();
  });
});

describe('phone sign-up', () => {
  it("asks the server and shows its 'not yet supported' answer", async () => {
    const message = 'Phone verification is not yet supported.';
    const calls = mockServer({ [`POST ${AuthPaths.sendCode}`]: { code: Errors.phoneNotSupported.code, message, status: 400 } });
    renderPage(<SignupPhone />, '/signupPhone');
    type('signup-phone', '+49 30 1234567');
    await click('signup-send-code');
    expect((await screen.findByTestId('signup-error')).textContent).toContain(message);
    expect(calls[0]?.body).toEqual({ phone: '+49 30 1234567' });
  });
});
