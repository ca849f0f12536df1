import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { AuthPaths, Errors, Limits } from '@loupe/contracts';
import '@/i18n';
import { CountdownButton } from '../shared/CountdownButton';
import RegisteredCheck from '../signup/RegisteredCheck';
import SignupEmail from '../signup/SignupEmail';
import { click, location, mockServer, renderPage, type } from './harness';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

const fill = (values: Record<string, string>) => {
  for (const [field, value] of Object.entries(values)) type(`signup-${field}`, value);
};

/** Ant Design's Select: open it, search, and click the option (its list is rendered in a portal). */
async function pickCountry(name: string) {
  const input = document.getElementById('country')!;
  await act(async () => {
    fireEvent.mouseDown(input);
    fireEvent.change(input, { target: { value: name } });
  });
  const option = await waitFor(() => {
    const el = document.querySelector(`.ant-select-item-option[title="${name}"]`);
    if (!el) throw new Error(`no option ${name}`);
    return el;
  });
  await act(async () => {
    fireEvent.click(option);
  });
}

const valid = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  password: 'secret12',
  confirmPassword: 'secret12',
  company: 'Analytical Engines',
  phone: '+44 20 7946 0958',
  jobTitle: 'Engineer',
};

describe('registration form (SPEC §5)', () => {
  it('requires first name, last name, email, password, company, phone and country', async () => {
    const calls = mockServer({});
    renderPage(<SignupEmail />, '/signupEmail');
    await click('signup-submit');
    for (const field of ['First name', 'Last name', 'Email', 'Password', 'Company', 'Phone', 'Country']) {
      expect(await screen.findByText(`${field} is required.`)).toBeTruthy();
    }
    expect(screen.queryByText('Job title is required.')).toBeNull();
    expect(calls).toHaveLength(0);
  });

  it('checks email and phone format', async () => {
    mockServer({});
    renderPage(<SignupEmail />, '/signupEmail');
    fill({ email: 'ada@example', phone: 'call me' });
    expect(await screen.findByText('Please enter a valid email address.')).toBeTruthy();
    expect(await screen.findByText('Please enter a valid phone number.')).toBeTruthy();
  });

  it('checks password length, letters-and-digits only, and the confirmation', async () => {
    mockServer({});
    renderPage(<SignupEmail />, '/signupEmail');
    fill({ password: 'ab1' });
    expect(await screen.findByText('The password must be 6 to 32 characters long.')).toBeTruthy();
    fill({ password: 'secret 12!' });
    expect(await screen.findByText('The password may contain only letters and digits.')).toBeTruthy();
    fill({ password: 'secret12', confirmPassword: 'secret13' });
    expect(await screen.findByText('The passwords do not match.')).toBeTruthy();
  });

  it('registers with trimmed values and goes to the activation notice', async () => {
    const calls = mockServer({ [`POST ${AuthPaths.register}`]: {} });
    renderPage(<SignupEmail />, '/signupEmail');
    fill({ ...valid, company: '  Analytical Engines ' });
    await pickCountry('Germany');
    await click('signup-submit');
    expect(await location()).toBe('/send-verify?email=ada%40example.com');
    expect(calls[0]?.body).toMatchObject({ ...valid, country: 'DE', language: 'en' });
  });

  it('puts "email registered" from the server under the email field', async () => {
    const message = 'This email is already registered.';
    mockServer({ [`POST ${AuthPaths.register}`]: { code: Errors.emailRegistered.code, message, status: 409 } });
    renderPage(<SignupEmail />, '/signupEmail');
    fill(valid);
    await pickCountry('France');
    await click('signup-submit');
    expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.queryByTestId('signup-error')).toBeNull();
  });
});

describe('activation link', () => {
  it('goes on to the review notice when the token is accepted', async () => {
    const calls = mockServer({ [`POST ${AuthPaths.activate}`]: { data: { status: 'pending' } } });
    renderPage(<RegisteredCheck />, '/registered/check?token=abc');
    expect(await location()).toBe('/registered/comfirm');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body).toEqual({ token: 'abc' });
  });

  it('says the link is invalid and offers to register again', async () => {
    const message = 'The activation link has expired or is invalid. Please register again.';
    mockServer({ [`POST ${AuthPaths.activate}`]: { code: Errors.activationInvalid.code, message, status: 400 } });
    renderPage(<RegisteredCheck />, '/registered/check?token=old');
    expect(await screen.findByText(message)).toBeTruthy();
    await click('activate-register-again');
    expect(await location()).toBe('/signup');
  });
});

describe('resend countdown', () => {
  it('locks for Limits.codeResendS after a send, counts down each second, then unlocks', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const onSend = vi.fn().mockResolvedValue(undefined);
    render(
      <CountdownButton onSend={onSend} data-testid="resend">
        Send
      </CountdownButton>,
    );
    const button = () => screen.getByTestId('resend');
    await act(async () => {
      fireEvent.click(button());
    });
    expect(onSend).toHaveBeenCalledTimes(1);
    expect(button().textContent).toContain(`Resend in ${Limits.codeResendS} s`);
    expect(button().hasAttribute('disabled')).toBe(true);
    await act(async () => {
      vi.advanceTimersByTime(1000);
    });
    expect(button().textContent).toContain(`Resend in ${Limits.codeResendS - 1} s`);
    await act(async () => {
      vi.advanceTimersByTime((Limits.codeResendS - 1) * 1000);
    });
    expect(button().textContent).toContain('Send');
    expect(button().hasAttribute('disabled')).toBe(false);
  });

  it('uses the wait the server names, and stays available after a refusal', async () => {
    const onSend = vi.fn().mockRejectedValueOnce(new Error('too many')).mockResolvedValueOnce(30);
    render(
      <CountdownButton onSend={onSend} data-testid="resend">
        Send
      </CountdownButton>,
    );
    await act(async () => {
      fireEvent.click(screen.getByTestId('resend'));
    });
    expect(screen.getByTestId('resend').hasAttribute('disabled')).toBe(false);
    await act(async () => {
      fireEvent.click(screen.getByTestId('resend'));
    });
    expect(screen.getByTestId('resend').textContent).toContain('Resend in 30 s');
  });
});
