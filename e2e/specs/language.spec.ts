import { createApprovedUser } from '../support/api.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

test('the sidebar language switch passes through /loading-page, returns to the page and translates it', async ({
  user: page,
}, testInfo) => {
  const account = await createApprovedUser('lang');
  await signInAsUser(page, account);
  await page.goto('/profile?tab=1#top');
  await expect(page.getByTestId('menu-profile')).toHaveText('Profile');

  const visited: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visited.push(frame.url());
  });

  const choose = async (lang: string) => {
    await page.getByTestId('language-switch').click();
    await page.getByTestId(`language-option-${lang}`).click();
  };

  await choose('de');
  await expect(page.getByTestId('menu-profile')).toHaveText('Profil');
  await expect(page).toHaveURL(/\/profile\?tab=1#top$/);
  const passage = visited.map((u) => new URL(u)).find((u) => u.pathname === '/loading-page');
  expect(passage, `navigations: ${visited.join(', ')}`).toBeDefined();
  expect(passage!.searchParams.get('lang')).toBe('de');
  expect(passage!.searchParams.get('path')).toBe('/profile');
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByTestId('menu-changePassword')).toHaveText('Passwort ändern');
  await snap(page, testInfo, 'profile-de');
  // The switch is also the account's language: the profile on screen and on the server agree.
  await expect(page.getByTestId('profile-language')).toContainText('Deutsch');

  // The choice lives in local storage, so a reload stays German.
  await page.reload();
  await expect(page.getByTestId('menu-profile')).toHaveText('Profil');

  await choose('en');
  await expect(page.getByTestId('menu-profile')).toHaveText('Profile');
  await expect(page.getByTestId('menu-changePassword')).toHaveText('Change password');
  await expect(page).toHaveURL(/\/profile\?tab=1#top$/);
});

test('German stays after signing out, and the server answers a German user in German', async ({ user: page }) => {
  const account = await createApprovedUser('deutsch');
  await signInAsUser(page, account);
  await page.goto('/profile');
  await page.getByTestId('language-switch').click();
  await page.getByTestId('language-option-de').click();
  await expect(page.getByTestId('menu-profile')).toHaveText('Profil');

  await page.getByTestId('user-menu').click();
  await page.getByTestId('sign-out').click();
  await expect(page).toHaveURL(/\/signin$/);
  await expect(page.getByTestId('signin-home')).toContainText('Bei Loupe anmelden');

  await page.getByTestId('signin-with-password').click();
  await page.getByTestId('signin-email').fill(account.email);
  await page.getByTestId('signin-next').click();
  await page.getByTestId('signin-password').fill(`${account.password}0`);
  await page.getByTestId('signin-submit').click();
  // The message is the server's, chosen by the Language header the client sends.
  await expect(page.getByTestId('signin-error')).toHaveText('E-Mail oder Passwort ist falsch.');
});
