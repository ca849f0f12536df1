/**
 * The fixed facts the harness and the specs share. The server is started once per run by global-setup.ts on a
 * port reserved for the browser tests, so a developer's `npm start` on 8080 never collides with it.
 */
/** E2E_PORT runs a second suite beside one already running (two checkouts, or one spec while the suite runs). */
export const PORT = Number(process.env.E2E_PORT ?? 18200);
export const BASE_URL = `http://127.0.0.1:${PORT}`;

export const ADMIN_EMAIL = 'admin@loupe.test';
/** 6 to 32 letters and digits, as the server's config check demands (SPEC §5). */
export const ADMIN_PASSWORD = 'Loupe2026Admin';

/** Debian's Chromium; Playwright's own browser downloads are never used. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
