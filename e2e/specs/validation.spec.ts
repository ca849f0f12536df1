import { accounts, freshUser } from '../support/api.js';
import { ADMIN_EMAIL } from '../support/env.js';
import { expect, test } from '../support/fixtures.js';
import { fieldError, fillSignup, signIn } from '../support/ui.js';

test('the sign-up form refuses empty required fields, a short password, symbols, a wrong confirmation and a bad email', async ({
  user: page,
}) => {
  const user = freshUser('invalid');
  await page.goto('/signupEmail');
  await page.getByTestId('signup-submit').click();
  await expect(fieldError(page, 'signup-firstName')).toHaveText('First name is required.');
  await expect(fieldError(page, 'signup-phone')).toHaveText('Phone is required.');
  await expect(fieldError(page, 'signup-jobTitle')).toHaveCount(0);

  await fillSignup(page, { ...user, password: 'abc12' }, 'abc12');
  await expect(fieldError(page, 'signup-firstName')).toHaveCount(0);
  await page.getByTestId('signup-submit').click();
  await expect(fieldError(page, 'signup-password')).toHaveText('The password must be 6 to 32 characters long.');

  await page.getByTestId('signup-password').fill('abc$1234');
  await page.getByTestId('signup-confirmPassword').fill('abc$1234');
  await page.getByTestId('signup-submit').click();
  await expect(fieldError(page, 'signup-password')).toHaveText('The password may contain only letters and digits.');

  await page.getByTestId('signup-password').fill(user.password);
  await page.getByTestId('signup-confirmPassword').fill(`${user.password}x`);
  await page.getByTestId('signup-submit').click();
  await expect(fieldError(page, 'signup-password')).toHaveCount(0);
  await expect(fieldError(page, 'signup-confirmPassword')).toHaveText('The passwords do not match.');

  await page.getByTestId('signup-confirmPassword').fill(user.password);
  await page.getByTestId('signup-email').fill('ada.lovelace@factory');
  await page.getByTestId('signup-submit').click();
  await expect(fieldError(page, 'signup-confirmPassword')).toHaveCount(0);
  await expect(fieldError(page, 'signup-email')).toHaveText('Please enter a valid email address.');

  await expect(page).toHaveURL(/\/signupEmail$/);
  const registered = (await accounts()).map((a) => a.email);
  expect(registered.filter((e) => e.startsWith('ada.lovelace@factory') || e === user.email)).toEqual([]);
});

test('the server refuses a registered email on sign-up and a wrong password on sign-in', async ({ user: page }) => {
  await page.goto('/signupEmail');
  await fillSignup(page, { ...freshUser('taken'), email: ADMIN_EMAIL });
  await page.getByTestId('signup-submit').click();
  await expect(fieldError(page, 'signup-email')).toHaveText('This email is already registered.');
  await expect(page).toHaveURL(/\/signupEmail$/);

  await signIn(page, ADMIN_EMAIL, 'NotThePassword1');
  await expect(page.getByTestId('signin-error')).toHaveText('Incorrect email or password.');
  await expect(page).toHaveURL(/\/signinEmailPassword\?/);
});
