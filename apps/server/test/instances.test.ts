import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors } from '@loupe/contracts';
import { loadConfig, type Config } from '../src/config.js';
import { installErrorHandler } from '../src/http/error-handler.js';
import { authRateLimit, rateLimitOptions } from '../src/http/rate-limit.js';
import { redisConnection } from '../src/adapters/redis.js';
import { call, createUser, login, startApp, type TestApp } from './helper.js';
import { startRedis, type TestRedis } from './redis-server.js';

/**
 * Two server instances behind one load balancer: whatever one knows about sessions, sign-in lockouts and rate
 * limits, the other must know too. Sessions and lockouts live in the database (one for both); rate limits need
 * Redis to be shared.
 */
describe('two server instances on one database', () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const lockout = { addressFree: 3, addressBaseS: 30, addressCapS: 900, accountFree: 100, accountBaseS: 2, accountCapS: 60, forgetAfterS: 3600 };
    a = await startApp({ lockout });
    // The same data folder (SQLite file, blobs) and, on PostgreSQL, the same schema: a second process of one deployment.
    b = await startApp({ lockout, dataDir: a.config.dataDir, databaseSchema: a.config.databaseSchema });
  });
  afterAll(async () => {
    // b's own close() would remove the data folder they share while a still uses it; a's removes it after both.
    await b?.app.close();
    await a?.close();
  });

  it('honours a session started on A when called through B, until it is replaced or ended', async () => {
    const { user } = await createUser(a.app);
    const first = await login(a.app, user.email, user.password);
    expect((await call(b.app, 'GET', '/api/profile', undefined, { token: first })).code).toBe(0);

    // One session per account (SPEC §6): signing in through B ends the session A handed out.
    const second = await login(b.app, user.email, user.password);
    expect(await call(a.app, 'GET', '/api/profile', undefined, { token: first })).toMatchObject({ code: Errors.loggedInElsewhere.code });
    expect((await call(a.app, 'GET', '/api/profile', undefined, { token: second })).code).toBe(0);

    expect((await call(a.app, 'POST', '/api/logout', undefined, { token: second })).code).toBe(0);
    expect(await call(b.app, 'GET', '/api/profile', undefined, { token: second })).toMatchObject({ code: Errors.sessionInvalid.code });
  });

  it('counts sign-in failures against one account across both instances', async () => {
    const { user } = await createUser(a.app);
    const wrong = { username: user.email, password: 'Wrong12345' };
    expect((await call(a.app, 'POST', '/api/login', wrong)).code).toBe(Errors.badCredentials.code);
    expect((await call(b.app, 'POST', '/api/login', wrong)).code).toBe(Errors.badCredentials.code);
    // The third failure (addressFree) locks the account for this address, whichever instance sees it.
    expect(await call(a.app, 'POST', '/api/login', wrong)).toMatchObject({ status: 429, code: Errors.accountLocked.code });
    // Refused on the other instance too, the right password included.
    expect(await call(b.app, 'POST', '/api/login', { username: user.email, password: user.password })).toMatchObject({
      status: 429,
      code: Errors.accountLocked.code,
    });
  });
});

/**
 * @fastify/rate-limit with rateLimitOptions on two bare Fastify instances, each with its own Redis connection
 * (as two processes would have), counting into one Redis.
 */
describe('rate limits shared through Redis', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  const apps: FastifyInstance[] = [];
  const config: Config = { ...loadConfig({}), logLevel: 'silent', rateLimit: { max: 6, authMax: 3, windowMs: 60_000 } };

  async function instance(withRedis: boolean): Promise<FastifyInstance> {
    const app = Fastify();
    apps.push(app);
    installErrorHandler(app);
    let client: Redis | null = null;
    if (withRedis) {
      client = redisConnection(redis.url, 'rate-limit', { failFast: true });
      clients.push(client);
    }
    await app.register(rateLimit, rateLimitOptions(config, client));
    app.get('/api/ping', async () => ({ code: 0, message: 'ok', data: null }));
    app.get('/page', async () => 'a static file');
    app.post('/api/login', { config: { rateLimit: authRateLimit(config) } }, async () => ({ code: 0, message: 'ok', data: null }));
    await app.ready();
    return app;
  }
  const status = async (app: FastifyInstance, method: 'GET' | 'POST', url: string) => (await app.inject({ method, url })).statusCode;

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(apps.map((x) => x.close()));
    clients.forEach((c) => c.disconnect());
    await redis?.stop();
  });

  it('counts one budget per address across both instances, and a stricter one for sign-in', async () => {
    const [a, b] = [await instance(true), await instance(true)];
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) seen.push(await status(i % 2 ? b : a, 'GET', '/api/ping'));
    expect(seen).toEqual([200, 200, 200, 200, 200, 200]);
    const over = await b.inject({ method: 'GET', url: '/api/ping' });
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ code: Errors.tooManyRequests.code });
    expect(await status(a, 'GET', '/api/ping')).toBe(429);
    // Pages are not limited.
    expect(await status(a, 'GET', '/page')).toBe(200);

    // The sign-in route has its own count (authMax), shared the same way.
    expect([await status(a, 'POST', '/api/login'), await status(b, 'POST', '/api/login'), await status(a, 'POST', '/api/login')]).toEqual([200, 200, 200]);
    expect(await status(b, 'POST', '/api/login')).toBe(429);
  });

  it('without Redis, counts each instance on its own', async () => {
    const [a, b] = [await instance(false), await instance(false)];
    for (let i = 0; i < 6; i++) expect(await status(a, 'GET', '/api/ping')).toBe(200);
    expect(await status(b, 'GET', '/api/ping')).toBe(200);
    expect(await status(a, 'GET', '/api/ping')).toBe(429);
  });

  it('while Redis is down, lets the API through but refuses sign-in', async () => {
    const own = await startRedis();
    const saved = redis;
    redis = own;
    try {
      const a = await instance(true);
      expect(await status(a, 'POST', '/api/login')).toBe(200);
      await own.stop();
      expect(await status(a, 'GET', '/api/ping')).toBe(200);
      const refused = await a.inject({ method: 'POST', url: '/api/login' });
      expect(refused.statusCode).toBe(500);
    } finally {
      redis = saved;
    }
  });
});
