import { createApprovedUser } from '../support/api.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

const MOBILE_BREAKPOINT = 992;

test('the sidebar collapses below 992 px and its mobile overlay closes it', async ({ user: page }, testInfo) => {
  const account = await createApprovedUser('layout');
  await signInAsUser(page, account);
  await page.goto('/profile');

  const sidebar = page.getByTestId('sidebar');
  const overlay = page.getByTestId('sidebar-overlay');
  const width = async () => (await sidebar.boundingBox())?.width ?? 0;

  await expect(sidebar).toBeVisible();
  await expect.poll(width).toBeGreaterThan(150);
  // Working pages keep a 16 px root font whatever the window height (SPEC §2).
  await expect.poll(() => page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('16px');

  // Wider than tall: a taller window would raise the phone warning over everything.
  await page.setViewportSize({ width: MOBILE_BREAKPOINT - 192, height: 600 });
  await expect(sidebar).toHaveClass(/ant-layout-sider-collapsed/);
  await expect.poll(width).toBeLessThan(1);
  await expect(overlay).toHaveCount(0);

  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).not.toHaveClass(/ant-layout-sider-collapsed/);
  await expect.poll(width).toBeGreaterThan(150);
  await expect(overlay).toBeVisible();
  await snap(page, testInfo, 'mobile-sidebar-open');

  // Click the dimmed part of the page, to the right of the open sidebar.
  await overlay.click({ position: { x: 700, y: 300 } });
  await expect(sidebar).toHaveClass(/ant-layout-sider-collapsed/);
  await expect(overlay).toHaveCount(0);

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(sidebar).not.toHaveClass(/ant-layout-sider-collapsed/);
  await expect.poll(width).toBeGreaterThan(150);
});

test('on a wide window the sidebar remembers its state in a cookie; a portrait window shows the phone warning', async ({
  user: page,
}) => {
  const account = await createApprovedUser('cookie');
  await signInAsUser(page, account);
  await page.goto('/profile');
  const sidebar = page.getByTestId('sidebar');
  await expect(sidebar).not.toHaveClass(/ant-layout-sider-collapsed/);

  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).toHaveClass(/ant-layout-sider-collapsed/);
  const cookie = async () => (await page.context().cookies()).find((c) => c.name === 'sidebarStatus')?.value;
  expect(await cookie()).toBe('0');
  await page.reload();
  await expect(page.getByTestId('sidebar')).toHaveClass(/ant-layout-sider-collapsed/);
  // Collapsed on the desktop is not a mobile sidebar: no overlay dims the page.
  await expect(page.getByTestId('sidebar-overlay')).toHaveCount(0);

  await page.getByTestId('sidebar-toggle').click();
  await expect(sidebar).not.toHaveClass(/ant-layout-sider-collapsed/);
  expect(await cookie()).toBe('1');

  await page.setViewportSize({ width: 600, height: 900 });
  await expect(page.getByTestId('phone-warning')).toBeVisible();
  await page.getByTestId('phone-warning-dismiss').click();
  await expect(page.getByTestId('phone-warning')).toHaveCount(0);
  await expect(page.getByTestId('user-menu')).toBeVisible();
});
