import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AuthPaths, type LoginData } from '@loupe/contracts';
import i18n, { LANGUAGE_STORAGE_KEY } from '@/i18n';
import { PhoneWarning, PHONE_WARNING_DISMISSED_KEY } from '@/layout/PhoneWarning';
import { useSession } from '@/stores/session';
import ForgetVerify from '../forgot/ForgetVerify';
import SigninEmailPassword from '../signin/SigninEmailPassword';
import { click, location, mockServer, renderPage, type } from './harness';

/** Issue 31 item 6: three traps of the account screens. */
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useSession.getState().clear();
  localStorage.clear();
  void i18n.changeLanguage('en');
});

const loginData = (language: LoginData['language']): LoginData => ({
  token: 'tok-1',
  username: 'Ada Lovelace',
  email: 'ada@example.com',
  companyName: 'Analytical',
  isprivate: false,
  role: '0',
  roleName: 'user',
  language,
  menus: [],
  user_info: { user_id: 1, email: 'ada@example.com', name: 'Ada', created_at: '', phone: '', company: 'Analytical' },
});

describe("the account's saved language at sign-in", () => {
  it('replaces the language the sign-in page was shown in, and is remembered', async () => {
    mockServer({ [`POST ${AuthPaths.login}`]: { data: loginData('de') } });
    renderPage(<SigninEmailPassword />, '/signinEmailPassword?email=ada@example.com');
    expect(i18n.language).toBe('en');
    type('signin-password', 'secret1');
    await click('signin-submit');
    expect(await location()).toBe('/agentList');
    await waitFor(() => expect(i18n.language).toBe('de'));
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('de');
  });
});

describe('/forgetVerify', () => {
  it('sends a visit without an address to /forgetEmail instead of "sent to ."', async () => {
    mockServer({});
    renderPage(<ForgetVerify />, '/forgetVerify');
    expect(await location()).toBe('/forgetEmail');
  });

  it('treats a blank address like none', async () => {
    mockServer({});
    renderPage(<ForgetVerify />, '/forgetVerify?email=%20');
    expect(await location()).toBe('/forgetEmail');
  });
});

describe('the phone warning', () => {
  it('stays dismissed after a reload', async () => {
    vi.stubGlobal('innerWidth', 390);
    vi.stubGlobal('innerHeight', 844);
    const first = render(<PhoneWarning />);
    expect(screen.getByTestId('phone-warning')).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByTestId('phone-warning-dismiss'));
    });
    expect(screen.queryByTestId('phone-warning')).toBeNull();
    expect(localStorage.getItem(PHONE_WARNING_DISMISSED_KEY)).toBe('1');
    first.unmount();
    // A reload: the component starts again from storage.
    render(<PhoneWarning />);
    expect(screen.queryByTestId('phone-warning')).toBeNull();
  });

  it('shows on a phone that never dismissed it', () => {
    vi.stubGlobal('innerWidth', 390);
    vi.stubGlobal('innerHeight', 844);
    render(<PhoneWarning />);
    expect(screen.getByTestId('phone-warning')).toBeTruthy();
  });
});
