import { createApprovedUser } from '../support/api.js';
import { expect, snap, test } from '../support/fixtures.js';
import { signInAsUser } from '../support/ui.js';

const MOBILE_BREAKPOINT = 992;
const COLLAPSED = /ant-layout-sider-collapsed/;

test('the sidebar keeps its state in a cookie, collapses below 992 px with an overlay that closes it, and a portrait window warns', async ({
  user: page,
}, testInfo) => {
  const account = await createApprovedUser('layout');
  await signInAsUser(page, account);
  await page.goto('/profile');

  const sidebar = page.getByTestId('sidebar');
  const overlay = page.getByTestId('sidebar-overlay');
  const width = async () => (await sidebar.boundingBox())?.width ?? 0;
  const cookie = async () => (await page.context().cookies()).find((c) => c.name === 'sidebarStatus')?.value;

  await test.step('wide window: open sidebar, 16 px root font', async () => {
    await expect(sidebar).toBeVisible();
    await expect(sidebar).not.toHaveClass(COLLAPSED);
    await expect.poll(width).toBeGreaterThan(150);
    // Working pages keep a 16 px root font whatever the window height (SPEC §2).
    await expect.poll(() => page.evaluate(() => getComputedStyle(document.documentElement).fontSize)).toBe('16px');
  });

  await test.step('the desktop choice survives a reload through the cookie', async () => {
    await page.getByTestId('sidebar-toggle').click();
    await expect(sidebar).toHaveClass(COLLAPSED);
    expect(await cookie()).toBe('0');
    await page.reload();
    await expect(sidebar).toHaveClass(COLLAPSED);
    // Collapsed on the desktop is not a mobile sidebar: no overlay dims the page.
    await expect(overlay).toHaveCount(0);
    await page.getByTestId('sidebar-toggle').click();
    await expect(sidebar).not.toHaveClass(COLLAPSED);
    expect(await cookie()).toBe('1');
  });

  await test.step('below 992 px the sidebar collapses; opened, its overlay closes it', async () => {
    // Wider than tall: a taller window would raise the phone warning over everything.
    await page.setViewportSize({ width: MOBILE_BREAKPOINT - 192, height: 600 });
    await expect(sidebar).toHaveClass(COLLAPSED);
    await expect.poll(width).toBeLessThan(1);
    await expect(overlay).toHaveCount(0);

    await page.getByTestId('sidebar-toggle').click();
    await expect(sidebar).not.toHaveClass(COLLAPSED);
    await expect.poll(width).toBeGreaterThan(150);
    await expect(overlay).toBeVisible();
    await snap(page, testInfo, 'mobile-sidebar-open');

    // Click the dimmed part of the page, to the right of the open sidebar.
    await overlay.click({ position: { x: 700, y: 300 } });
    await expect(sidebar).toHaveClass(COLLAPSED);
    await expect(overlay).toHaveCount(0);
  });

  await test.step('wide again: the desktop state comes back', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await expect(sidebar).not.toHaveClass(COLLAPSED);
    await expect.poll(width).toBeGreaterThan(150);
    expect(await cookie()).toBe('1');
  });

  await test.step('a portrait window shows the phone warning, which can be dismissed', async () => {
    await page.setViewportSize({ width: 600, height: 900 });
    await expect(page.getByTestId('phone-warning')).toBeVisible();
    await page.getByTestId('phone-warning-dismiss').click();
    await expect(page.getByTestId('phone-warning')).toHaveCount(0);
    await expect(page.getByTestId('user-menu')).toBeVisible();
  });
});

test("the system's reduced-motion setting switches the dialogs' zoom off and back on, without a reload", async ({ user: page }) => {
  const account = await createApprovedUser('motion');
  await signInAsUser(page, account);
  const dialog = page.getByTestId('create-model-dialog').locator('.ant-modal').first();
  // Opens and closes the dialog; whether it zoomed in on the way, however briefly, as a MutationObserver saw it.
  // (Without motion the dialog still passes a prepare step, which sets its zoom origin, but never an active one.)
  const opensZooming = async () => {
    await page.evaluate(() => {
      const seen = window as unknown as { zoomed: boolean };
      seen.zoomed = false;
      new MutationObserver(() => {
        if (document.querySelector('.ant-zoom-appear-active, .ant-zoom-enter-active')) seen.zoomed = true;
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
    });
    await page.getByTestId('create-model').click();
    await expect(dialog).toBeVisible();
    await expect(dialog).not.toHaveClass(/ant-zoom/);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    return page.evaluate(() => (window as unknown as { zoomed: boolean }).zoomed);
  };

  // The browsers of these tests ask for reduced motion (fixtures).
  expect(await opensZooming()).toBe(false);
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  expect(await opensZooming()).toBe(true);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await opensZooming()).toBe(false);
});
