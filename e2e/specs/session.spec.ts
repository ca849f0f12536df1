import { call, createApprovedUser } from '../support/api.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

test('signing in on a second browser ends the first session with the "logged in elsewhere" dialog', async ({
  user: first,
  openBrowser,
}, testInfo) => {
  const account = await createApprovedUser('session');
  await signInAsUser(first, account);
  await first.goto('/profile');
  await expect(first.getByTestId('sidebar')).toBeVisible();

  const second = await openBrowser('second');
  await signInAsUser(second, account);

  // The first browser's next call to the API carries the old token.
  await first.reload();
  const dialog = first.getByTestId('relogin-modal');
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('signed in somewhere else');
  // The profile page's own call failed the same way: still one dialog, and no error toast beside it.
  await expect(first.locator('.ant-modal')).toHaveCount(1);
  await expect(first.locator('.ant-message-notice, .ant-notification-notice')).toHaveCount(0);
  await snap(first, testInfo, 'relogin-dialog');
  await first.getByTestId('relogin-confirm').click();
  await expect(first).toHaveURL(/\/signin$/);
  await expect(first.getByTestId('signin-home')).toBeVisible();
  await expect(dialog).toBeHidden();

  // Signed out for real: the model list now sends the first browser to sign in.
  await first.goto('/agentList');
  await expect(first).toHaveURL(/\/signin-home$/);

  // The newer session is untouched.
  await second.reload();
  await expect(second).toHaveURL(/\/agentList$/);
  await expect(second.getByTestId('user-menu')).toContainText(account.email);
  await expect(second.getByTestId('relogin-modal')).toHaveCount(0);
});

test('the top-bar menu leads to usage, and signing out there ends the session on the server too', async ({ user: page }) => {
  const account = await createApprovedUser('signout');
  await signInAsUser(page, account);
  await page.goto('/profile');
  const token = await page.evaluate(() => localStorage.getItem('token'));
  expect(token).toBeTruthy();
  expect((await call<{ email: string }>('GET', '/api/vue-admin-template/user/info', undefined, token!)).email).toBe(
    account.email,
  );

  await page.getByTestId('user-menu').click();
  await page.getByTestId('menu-usage-link').click();
  await expect(page).toHaveURL(/\/usage$/);
  await expect(page.getByTestId('usage-page')).toBeVisible();

  await page.getByTestId('user-menu').click();
  await page.getByTestId('sign-out').click();
  // SPEC §2: sign out, then /signin.
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByTestId('signin-home')).toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull();

  const reuse = call('GET', '/api/vue-admin-template/user/info', undefined, token!);
  await expect(reuse).rejects.toMatchObject({ code: 99990 });
});
