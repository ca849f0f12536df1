import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test as base, chromium, type BrowserContext, type Page, type TestInfo } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './env.js';

export interface OpenBrowser {
  /** A separate Chromium with its own profile: own local storage, cookies and session, like a second machine. */
  (label: string): Promise<Page>;
}

interface Fixtures {
  openBrowser: OpenBrowser;
  /** The first browser of a spec. */
  user: Page;
}

interface Opened {
  label: string;
  context: BrowserContext;
  dir: string;
  errors: string[];
}

export const test = base.extend<Fixtures>({
  openBrowser: async ({ baseURL }, use, testInfo) => {
    const opened: Opened[] = [];
    await use(async (label) => {
      const dir = mkdtempSync(path.join(tmpdir(), `loupe-e2e-${label}-`));
      const context = await chromium.launchPersistentContext(dir, {
        executablePath: CHROMIUM_PATH,
        args: CHROMIUM_ARGS,
        headless: true,
        baseURL,
        viewport: { width: 1280, height: 800 },
        locale: 'en-US',
        // The app then turns Ant Design's animations off: a click on a dialog still zooming in can press on one
        // element and release on another that moved, and the browser drops it. layout.spec checks both settings.
        reducedMotion: 'reduce',
      });
      context.setDefaultTimeout(30_000);
      context.setDefaultNavigationTimeout(30_000);
      const errors: string[] = [];
      opened.push({ label, context, dir, errors });
      // A persistent context opens with one blank tab; reuse it rather than leaving it behind.
      const page = context.pages()[0] ?? (await context.newPage());
      page.on('pageerror', (e) => errors.push(`${e.name}: ${e.message}`));
      return page;
    });
    const failed = testInfo.status !== testInfo.expectedStatus;
    for (const { label, context, dir, errors } of opened) {
      if (failed) {
        for (const [i, page] of context.pages().entries()) {
          const shot = await page.screenshot({ fullPage: true }).catch(() => null);
          if (shot) await testInfo.attach(`${label}-${i}.png`, { body: shot, contentType: 'image/png' });
        }
      }
      if (errors.length > 0) {
        await testInfo.attach(`${label}-page-errors.txt`, { body: errors.join('\n'), contentType: 'text/plain' });
        console.warn(`[${label}] uncaught errors in the page:\n  ${errors.join('\n  ')}`);
      }
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
  user: async ({ openBrowser }, use) => {
    await use(await openBrowser('user'));
  },
});

export { expect } from '@playwright/test';

/** A screenshot kept in the test's output folder (test-results/) and attached to the report, for a human look. */
export async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: 'image/png' });
}
