import fs from 'node:fs';
import { createRequire } from 'node:module';
import Fastify, { type FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AuthPaths } from '@loupe/contracts';
import type { Config } from './config.js';
import { AppError } from './errors.js';
import { installErrorHandler } from './http/error-handler.js';
import { installFilesCookie } from './http/auth-hooks.js';
import { installTurns } from './http/turns.js';
import { reqSerializer } from './http/log-redact.js';
import { docsCsp, installSecurityHeaders } from './http/security-headers.js';
import type { Deps } from './services/deps.js';
import { wire } from './wiring.js';
import { adoptLegacyCheckpoints } from './services/training/workdir.js';
import { redisConnection } from './adapters/redis.js';
import { authRateLimit, rateLimitOptions } from './http/rate-limit.js';
import { ensureFirstAdmin } from './services/admin.js';
import { startSweeps } from './services/gallery/blob-cleanup.js';
import { oidcService } from './services/oidc.js';
import { authRoutes } from './routes/auth.js';
import { registerRoutes } from './routes/register.js';
import { passwordRoutes } from './routes/passwords.js';
import { profileRoutes } from './routes/profile.js';
import { adminRoutes } from './routes/admin.js';
import { systemRoutes } from './routes/system.js';
import { oidcRoutes } from './routes/oidc.js';
import { modelRoutes } from './routes/models.js';
import { imageRoutes } from './routes/images.js';
import { usageRoutes } from './routes/usage.js';
import { uploadRoutes } from './routes/uploads.js';
import { labelRoutes } from './routes/labels.js';
import { labelingRoutes } from './routes/labeling.js';
import { trainingRoutes } from './routes/trainings.js';
import { versionRoutes } from './routes/versions.js';
import { parameterRoutes } from './routes/parameters.js';
import { packRoutes } from './routes/packs.js';
import { testRoutes } from './routes/tests.js';
import { measurementRoutes } from './routes/measurement.js';
import { monitorRoutes } from './routes/monitor.js';
import { analysisRoutes } from './routes/analysis.js';
import { agentRoutes } from './routes/agents.js';

const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

const isApi = (url: string) => /^\/api(\/|\?|$)/.test(url);

export interface AppOptions {
  /** The clock; tests move it forward to expire links and codes. */
  now?: () => number;
  /** Where the generated first-admin password is printed. */
  print?: (line: string) => void;
  /** Where the request log goes (default stdout); tests read it to check that no secret is written. */
  logStream?: { write(line: string): void };
  /** Called with the SQL of every query; tests count the queries a request costs. */
  onQuery?: (sql: string) => void;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
  }
}

/**
 * How the web app's files are sent: the build's hashed files (/assets/) never change under their name, so browsers
 * keep them a year without asking; index.html is asked for again each time (it names the current hashes). Scripts
 * and styles go out as the .br or .gz the build wrote beside them when the browser accepts one.
 */
const webCaching = {
  preCompressed: true,
  cacheControl: false,
  setHeaders: (res: { setHeader(name: string, value: string): unknown }, filePath: string) => {
    const hashed = /[\\/]assets[\\/][^\\/]+$/.test(filePath);
    res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    res.setHeader('Vary', 'Accept-Encoding');
  },
};

/** The whole API (and the built web app when present), ready to listen or to be driven by app.inject. */
export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // The req serializer redacts tokens, codes and passwords from logged URLs (and headers, if ever logged).
    logger: { level: config.logLevel, serializers: { req: reqSerializer }, ...(options.logStream ? { stream: options.logStream } : {}) },
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy,
    // Node closes an idle kept-alive connection after 5 s; a browser that sends a POST or PUT on it at that moment
    // gets a network error ("cannot reach the server") and does not retry a non-idempotent request. Longer than
    // the pauses of someone working in a form, and than the idle timeouts of common proxies (60 s).
    keepAliveTimeout: 75_000,
    // Type lists ({ type: ['number', 'boolean', 'string'] }) keep the validator's coercion from rewriting a value
    // that already has one of the allowed types (contracts' ParamValue); strict mode only warns about them.
    ajv: { customOptions: { allowUnionTypes: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const log: Deps['log'] = {
    info: (msg) => app.log.info(msg),
    warn: (msg) => app.log.warn(msg),
    error: (obj, msg) => app.log.error(obj, msg),
  };
  const wired = await wire(config, { now: options.now, onQuery: options.onQuery, log, runner: config.runner.inServer });
  const deps = wired.deps;
  // preClose runs before anything closes: running engines are stopped and their jobs recorded, then the ports go.
  app.addHook('preClose', () => wired.close());
  const adopted = await adoptLegacyCheckpoints(deps);
  if (adopted > 0) log.info(`${adopted} failed trainings' checkpoints moved from DATA_DIR/trainings into the blob store`);
  await wired.start();
  // Blob and temp files a crash left behind, now and every maintenance.sweepIntervalS (blob-cleanup.ts).
  const stopSweeps = await startSweeps(deps);
  app.addHook('preClose', () => stopSweeps());
  app.decorate('deps', deps);
  app.decorateRequest('auth', null);

  installErrorHandler(app);
  // First of all hooks: a request waits for its turn before anything runs for it (http/turns.ts).
  installTurns(app);
  installSecurityHeaders(app, { blobOrigin: config.storage.publicOrigin });
  await app.register(cookie);
  installFilesCookie(app);
  await app.register(formbody);
  // With REDIS_URL every server instance counts one budget per address (http/rate-limit.ts).
  const limiterRedis = config.redisUrl ? redisConnection(config.redisUrl, 'rate-limit', { failFast: true, log: (m) => log.warn(m) }) : null;
  if (limiterRedis) app.addHook('onClose', async () => void (await limiterRedis.quit().catch(() => undefined)));
  await app.register(rateLimit, rateLimitOptions(config, limiterRedis));
  await app.register(swagger, {
    openapi: {
      info: { title: 'Loupe API', version },
      components: {
        securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'X-Token' } },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: AuthPaths.docs, staticCSP: true, transformStaticCSP: docsCsp });

  const strict = authRateLimit(config);
  await app.register(systemRoutes(deps, version));
  await app.register(authRoutes(deps, strict));
  await app.register(registerRoutes(deps, strict));
  await app.register(passwordRoutes(deps, strict));
  await app.register(profileRoutes(deps));
  await app.register(adminRoutes(deps));
  await app.register(oidcRoutes(deps, oidcService(deps), strict));
  await app.register(modelRoutes(deps));
  await app.register(imageRoutes(deps));
  await app.register(usageRoutes(deps));
  await app.register(uploadRoutes(deps));
  await app.register(labelRoutes(deps));
  await app.register(labelingRoutes(deps));
  await app.register(trainingRoutes(deps));
  await app.register(versionRoutes(deps));
  await app.register(testRoutes(deps));
  await app.register(parameterRoutes(deps));
  await app.register(packRoutes(deps));
  await app.register(measurementRoutes(deps));
  await app.register(monitorRoutes(deps));
  await app.register(analysisRoutes(deps));
  await app.register(agentRoutes(deps));

  const webDir = config.webDir && fs.existsSync(config.webDir) ? config.webDir : null;
  if (webDir) await app.register(fastifyStatic, { root: webDir, prefix: '/', wildcard: true, index: ['index.html'], ...webCaching });

  app.setNotFoundHandler(async (req, reply) => {
    // A missing build file (a stale tab asking for an old chunk) is a 404, not the page under a script's name.
    const isPage = (req.method === 'GET' || req.method === 'HEAD') && !isApi(req.url) && !req.url.startsWith('/assets/');
    // SPA fallback: the web app's router owns every path that is not a file.
    if (webDir && isPage) return reply.type('text/html').sendFile('index.html');
    throw new AppError('notFound');
  });

  await ensureFirstAdmin(deps, options.print ?? ((line) => console.log(line)));
  return app;
}
