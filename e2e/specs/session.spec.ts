import { createApprovedUser } from '../support/api.js';
import { expect, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

test('signing in on a second browser ends the first session with the "logged in elsewhere" dialog', async ({
  user: first,
  openBrowser,
}) => {
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
  await expect(first.getByTestId('relogin-modal')).toHaveCount(1);
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
