import { call, createApprovedUser, uploadImages } from '../support/api.js';
import { createDetectionModel, sessionToken } from '../support/dataset.js';
import { expect, test } from '../support/fixtures.js';
import { boxesOf, drawJpeg } from '../support/images.js';
import { signInAsUser } from '../support/ui.js';

/**
 * Issue 30 items 2 and 3 in a real browser: the built app runs under its Content-Security-Policy without a
 * single violation, and the gallery's thumbnails load with no token in any URL (the HttpOnly files cookie
 * signs them in; script cannot read it).
 */
test('the built app runs under its CSP and shows images without a token in any URL', async ({ user: page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy|Refused to (load|execute|apply|connect|create)/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => console.error(`Content-Security-Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  const urls: string[] = [];
  page.on('request', (r) => urls.push(r.url()));

  const first = await page.goto('/signin-home');
  const csp = first!.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(first!.headers()['x-content-type-options']).toBe('nosniff');

  const person = await createApprovedUser('csp');
  await signInAsUser(page, person);
  const model = await createDetectionModel(page, `CSP ${Date.now().toString(36)}`);
  const token = await sessionToken(page);
  const ids = await uploadImages(token, model.id, await Promise.all([0, 1, 2].map(async (i) => ({ name: `part_${i}.jpg`, data: await drawJpeg(i, boxesOf(i)) }))));
  await page.reload();
  for (const id of ids) {
    const img = page.getByTestId(`image-card-${id}`).locator('img');
    await expect(img).toBeVisible();
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
    expect(await img.getAttribute('src')).toBe(`/api/models/${model.id}/images/${id}/thumbnail`);
  }

  // The cookie that signed the thumbnails in is out of script's reach.
  expect(await page.evaluate(() => document.cookie)).not.toContain('loupe_files');
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === 'loupe_files')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api' });

  expect(urls.filter((u) => /[?&]token=/.test(u) && !u.includes('/user/info'))).toEqual([]);
  expect(urls.some((u) => u.includes(token) && !u.includes('/user/info'))).toBe(false);
  expect(violations).toEqual([]);
  // Control: an injected inline script is blocked and reported, so the listener would have seen any violation.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.body.appendChild(s);
  });
  await expect.poll(() => violations.length).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
  // And the account's other API still refuses a token in the query.
  await expect(call('GET', `/api/models?token=${token}`)).rejects.toThrow();
});
