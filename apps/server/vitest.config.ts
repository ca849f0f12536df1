import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Two shared cores: more workers only add contention.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // Each file builds its own app on its own database, so files can share a worker's module cache;
    // importing Fastify, Kysely and friends once per worker instead of once per file saves seconds.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
