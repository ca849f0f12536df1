import { createApprovedUser } from '../support/api.js';
import { expect, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

test('a signed-out visit to /agentList lands on /signin-home, an unknown path on /404', async ({ user: page }) => {
  await page.goto('/agentList');
  await expect(page).toHaveURL(/\/signin-home$/);
  await expect(page.getByTestId('signin-home')).toBeVisible();
  // Public pages scale the root font with the window height (SPEC §2): 800 px high → 800/768·16 px.
  const rootFont = () => page.evaluate(() => parseFloat(getComputedStyle(document.documentElement).fontSize));
  await expect.poll(rootFont).toBeCloseTo((800 / 768) * 16, 2);
  await page.setViewportSize({ width: 1280, height: 960 });
  await expect.poll(rootFont).toBeCloseTo(20, 2);

  await page.goto('/no/such/page');
  await expect(page).toHaveURL(/\/404$/);
  await expect(page.getByTestId('not-found')).toBeVisible();

  await page.goto('/');
  await expect(page).toHaveURL(/\/signin$/);
});

test('a signed-in user is sent from /signin, /dashboard and the back office to the model list', async ({
  user: page,
}) => {
  const account = await createApprovedUser('guard');
  await signInAsUser(page, account);
  for (const path of ['/signin', '/dashboard', '/userManagement']) {
    await page.goto(path);
    await expect(page, `opening ${path}`).toHaveURL(/\/agentList$/);
  }
});
