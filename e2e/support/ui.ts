import { expect, type Page } from '@playwright/test';
import type { NewUser } from './api.js';

/**
 * What a user does on the account screens, by the test ids the account pages put on them. Kept here so that a
 * renamed id is fixed once, not in every spec.
 */

/** The sign-in a returning user does: /signin-home, "Email and password", the email step, the password step. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/signin-home');
  await page.getByTestId('signin-with-password').click();
  await expect(page).toHaveURL(/\/signinEmail(\?|$)/);
  await page.getByTestId('signin-email').fill(email);
  await page.getByTestId('signin-next').click();
  await expect(page).toHaveURL(/\/signinEmailPassword\?/);
  await page.getByTestId('signin-password').fill(password);
  await page.getByTestId('signin-submit').click();
}

/** Sign in and wait until the user's home page shows their address in the top bar. */
export async function signInAsUser(page: Page, user: Pick<NewUser, 'email' | 'password'>): Promise<void> {
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/agentList$/);
  await expect(page.getByTestId('user-menu')).toContainText(user.email);
}

/** Fill every SPEC §3 registration field; the country is picked from the searchable list as a user would. */
export async function fillSignup(page: Page, user: NewUser, confirmPassword = user.password): Promise<void> {
  await page.getByTestId('signup-firstName').fill(user.firstName);
  await page.getByTestId('signup-lastName').fill(user.lastName);
  await page.getByTestId('signup-email').fill(user.email);
  await page.getByTestId('signup-password').fill(user.password);
  await page.getByTestId('signup-confirmPassword').fill(confirmPassword);
  await page.getByTestId('signup-company').fill(user.company);
  await page.getByTestId('signup-phone').fill(user.phone);
  await pickCountry(page, user.country);
  await page.getByTestId('signup-jobTitle').fill(user.jobTitle);
}

async function pickCountry(page: Page, country: string): Promise<void> {
  const select = page.getByTestId('signup-country');
  await select.click();
  await page.keyboard.type(country);
  const option = page.locator('.ant-select-dropdown:visible .ant-select-item-option').filter({ hasText: country }).first();
  await option.click();
  await expect(select).toContainText(country);
}

/**
 * The Ant Design validation message under a form field, found from the field's test id. A replaced message
 * fades out for a moment beside its successor; the leaving one is not what the user reads.
 */
export function fieldError(page: Page, testId: string) {
  return page
    .locator('.ant-form-item')
    .filter({ has: page.getByTestId(testId) })
    .locator('.ant-form-item-explain-error:not(.ant-form-show-help-item-leave)');
}
