import { ADMIN_EMAIL, ADMIN_PASSWORD } from '../support/env.js';
import { freshUser, latestLink, outbox } from '../support/api.js';
import { expect, snap, test } from '../support/fixtures.js';
import { fillSignup, signIn } from '../support/ui.js';

test('a new user registers, activates by mail, waits for review, is approved and signs in', async ({
  user: page,
  openBrowser,
}, testInfo) => {
  const newUser = freshUser('register');

  await test.step('register with every registration field', async () => {
    await page.goto('/signupEmail');
    await expect(page.getByTestId('signup-email-page')).toBeVisible();
    await fillSignup(page, newUser);
    await page.getByTestId('signup-submit').click();
    await expect(page).toHaveURL(/\/send-verify\?email=/);
    await expect(page.getByTestId('send-verify')).toContainText(`We sent an activation link to ${newUser.email}`);
  });

  await test.step('signing in before activation says the account is not activated', async () => {
    await signIn(page, newUser.email, newUser.password);
    await expect(page.getByTestId('signin-error')).toContainText('Your account is not activated');
  });

  await test.step('open the activation link from the mail', async () => {
    const link = await latestLink(newUser.email);
    await page.goto(link);
    await expect(page).toHaveURL(/\/registered\/comfirm$/);
    const review = page.getByTestId('registered-confirm');
    await expect(review).toContainText('under review');
    await expect(review).toContainText('We will contact you within 24 hours');
    await snap(page, testInfo, 'under-review');
    // The link works once: opened again it says so and offers to register again.
    await page.goto(link);
    await expect(page.getByTestId('registered-check')).toContainText('The activation link has expired or is invalid');
    await expect(page.getByTestId('activate-register-again')).toBeVisible();
  });

  await test.step('signing in before approval says the account is under review', async () => {
    await signIn(page, newUser.email, newUser.password);
    await expect(page.getByTestId('signin-error')).toContainText('Your account is under review');
    await expect(page).toHaveURL(/\/signinEmailPassword\?/);
  });

  await test.step('the administrator approves the account on /userManagement', async () => {
    const admin = await openBrowser('admin');
    await signIn(admin, ADMIN_EMAIL, ADMIN_PASSWORD);
    await expect(admin).toHaveURL(/\/dashboard$/);
    await admin.getByTestId('menu-userManagement').click();
    await expect(admin).toHaveURL(/\/userManagement$/);
    // SPEC §2: administrators get a back link to the dashboard on other pages.
    await expect(admin.getByTestId('back-link')).toHaveText('Back to dashboard');
    const row = admin.getByTestId(`account-${newUser.email}`);
    // What the applicant typed reached the reviewer, field by field (the server stores the phone without spaces).
    for (const value of [
      `${newUser.firstName} ${newUser.lastName}`,
      newUser.company,
      newUser.phone.replace(/\s/g, ''),
      newUser.country,
      newUser.jobTitle,
    ]) {
      await expect(row).toContainText(value);
    }
    await snap(admin, testInfo, 'user-management');
    await admin.getByTestId(`approve-${newUser.email}`).click();
    // The pending list no longer holds the account once the server accepted the decision.
    await expect(row).toHaveCount(0);
    await admin.close();
    // The applicant is told by mail (read after the admin's browser is done: reading signs the admin in again).
    const mails = await outbox(newUser.email);
    expect(mails.some((m) => m.text.includes('your account has been approved'))).toBe(true);
  });

  await test.step('the approved user signs in and lands on the model list', async () => {
    await page.getByTestId('signin-submit').click();
    await expect(page).toHaveURL(/\/agentList$/);
    await expect(page.getByTestId('user-menu')).toContainText(newUser.email);
    // SPEC §2 lists /agentList among the standalone pages: top bar, no sidebar.
    await expect(page.getByTestId('standalone-layout')).toBeVisible();
    await expect(page.getByTestId('sidebar')).toHaveCount(0);
    await snap(page, testInfo, 'agent-list');
  });

  await test.step('working pages show the sidebar', async () => {
    await page.goto('/profile');
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('menu-agentList')).toBeVisible();
    // Users see no back-office entries, and the cloud build shows its copyright line.
    await expect(page.getByTestId('menu-userManagement')).toHaveCount(0);
    await expect(page.getByTestId('copyright')).toContainText('Loupe');
    await expect(page.getByTestId('user-menu')).toContainText(newUser.email);
    await snap(page, testInfo, 'profile');
  });
});
