import type { FastifyRequest } from 'fastify';
import type { RateLimitPluginOptions } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

const isApi = (url: string) => /^\/api(\/|\?|$)/.test(url);

/**
 * Options for @fastify/rate-limit: every API route, config.rateLimit.max per address per window.
 *
 * With a Redis client (REDIS_URL; pass `redisConnection(url, 'rate-limit', { failFast: true })`) the counts
 * live in Redis under `loupe-rl:`, so all server instances behind one load balancer count one budget per
 * address; without it each process counts its own.
 *
 * When Redis cannot count, the general API lets the request through (skipOnError): the limit guards against
 * floods, and an outage of Redis should not also take down browsing, labelling and everything else that only
 * needs the database. The sign-in, registration and password routes fail closed instead (authRateLimit).
 */
export function rateLimitOptions(config: Config, redis: Redis | null): RateLimitPluginOptions {
  return {
    global: true,
    max: config.rateLimit.max,
    timeWindow: config.rateLimit.windowMs,
    // Only the API is limited: one page load fetches many static files.
    allowList: (req: FastifyRequest) => !isApi(req.url),
    errorResponseBuilder: () => new AppError('tooManyRequests'),
    ...(redis ? { redis, nameSpace: 'loupe-rl:', skipOnError: true } : {}),
  };
}

/**
 * The stricter per-route limit of the routes that guess passwords and codes or send mail (sign-in, send code,
 * register, password reset, OIDC): config.rateLimit.authMax per address per window.
 *
 * skipOnError false: while Redis cannot count, these answer an error (500, the Redis error logged) rather than
 * run unlimited. An unlimited sign-in is what the limit exists to prevent (the per-account lockout in the
 * database still holds, but not across accounts), and an unlimited send-code or register mails anyone's inbox
 * full. A few seconds of refused sign-ins during a Redis restart is the smaller harm.
 */
export function authRateLimit(config: Config): { max: number; timeWindow: number; skipOnError: boolean } {
  return { max: config.rateLimit.authMax, timeWindow: config.rateLimit.windowMs, skipOnError: false };
}
