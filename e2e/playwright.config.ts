import { defineConfig } from '@playwright/test';
import { BASE_URL } from './support/env.js';

/**
 * Browser tests of the built app. One worker: the machine's two cores are shared with engine training, and the
 * specs share one server whose "one active login per account" rule makes parallel sign-ins of the admin racy.
 */
export default defineConfig({
  testDir: './specs',
  globalSetup: './support/global-setup.ts',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 120_000,
  globalTimeout: 10 * 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL: BASE_URL,
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
    screenshot: 'only-on-failure',
  },
});
