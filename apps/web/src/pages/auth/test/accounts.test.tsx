import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen } from '@testing-library/react';
import { AuthPaths, Errors } from '@loupe/contracts';
import { useSession } from '@/stores/session';
import ForgetEmail from '../forgot/ForgetEmail';
import ForgetVerify from '../forgot/ForgetVerify';
import SigninEmailPassword from '../signin/SigninEmailPassword';
import SigninVerify from '../signin/SigninVerify';
import SignupEmail from '../signup/SignupEmail';
import { click, location, mockServer, renderPage, type } from './harness';

/** Issue 30 item 7 as the pages show it: no "not registered" answers, the lockout's message, names. */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useSession.getState().clear();
});

describe('forgot password and send code do not say whether an address is registered', () => {
  it('goes on to the mailbox page for any address the server accepts', async () => {
    const calls = mockServer({ [`POST ${AuthPaths.forgot}`]: { data: null } });
    renderPage(<ForgetEmail />, '/forgetEmail');
    type('forgot-email', 'maybe@example.com');
    await click('forgot-submit');
    expect(await location()).toBe('/forgetVerify?email=maybe%40example.com');
    expect(calls[0]?.body).toEqual({ email: 'maybe@example.com' });
  });

  it('tells the user the link went out only if the address has an account', async () => {
    mockServer({});
    renderPage(<ForgetVerify />, '/forgetVerify?email=maybe@example.com');
    const text = (await screen.findByTestId('forgot-verify')).textContent ?? '';
    expect(text).toContain('If maybe@example.com belongs to an account, we sent it a password reset link, valid for 60 minutes.');
    expect(text).toContain('Check the address and your spam folder.');
    expect(text).not.toContain('We sent a password reset link to');
  });

  it('says the code is on its way only if the address has an account', async () => {
    mockServer({ [`POST ${AuthPaths.sendCode}`]: { data: { resendAfterS: 60 } } });
    renderPage(<SigninVerify />, '/signinVerify?email=maybe@example.com');
    await click('signin-send-code');
    expect((await screen.findByTestId('signin-code-sent')).textContent).toBe(
      'If this address belongs to an account, the code is on its way. It is valid for 10 minutes.',
    );
  });
});

describe('lockout', () => {
  it('shows the server refusal with the time left and stores no session', async () => {
    const message = 'Too many failed sign-ins for this account. Please try again in 42 seconds.';
    mockServer({ [`POST ${AuthPaths.login}`]: { status: 429, code: Errors.accountLocked.code, message, data: { retryAfterS: 42 } } });
    renderPage(<SigninEmailPassword />, '/signinEmailPassword?email=ada@example.com');
    type('signin-password', 'secret1');
    await click('signin-submit');
    expect((await screen.findByTestId('signin-error')).textContent).toContain(message);
    expect(useSession.getState().token).toBeNull();
  });
});

describe('names in the registration form', () => {
  it('refuses a bidirectional override or zero-width character before calling the server', async () => {
    const calls = mockServer({});
    renderPage(<SignupEmail />, '/signupEmail');
    type('signup-firstName', 'Ada\u202Egpj.exe');
    type('signup-company', 'Analytical\u200BEngines');
    await click('signup-submit');
    expect(
      await screen.findByText('First name contains a character that is not allowed in names (U+202E): control, zero-width or text-direction characters.'),
    ).toBeTruthy();
    expect(
      await screen.findByText('Company contains a character that is not allowed in names (U+200B): control, zero-width or text-direction characters.'),
    ).toBeTruthy();
    expect(calls).toHaveLength(0);
  });
});
