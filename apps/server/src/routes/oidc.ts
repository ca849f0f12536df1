import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuthPaths, Errors, OidcExchangeBody, OidcExchangeData } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { pickLanguage } from '../i18n.js';
import type { Deps } from '../services/deps.js';
import { exchangeLandingCode, type OidcService } from '../services/oidc.js';

const COOKIE = 'loupe_oidc_state';

/** Browser navigations (start, callback) answer with redirects; the landing's code exchange is an API call. */
export function oidcRoutes(deps: Deps, oidc: OidcService | null, strict?: { max: number; timeWindow: number }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['single sign-on'];
    const cookiePath = '/api/auth/oidc';
    app.get(AuthPaths.oidcStart, { schema: { tags } }, async (req, reply) => {
      if (!oidc) return reply.redirect(`/signin?error=${Errors.oidcNotConfigured.code}`);
      try {
        const { url, state } = await oidc.start();
        reply.setCookie(COOKIE, state, {
          path: cookiePath,
          httpOnly: true,
          sameSite: 'lax',
          secure: deps.config.publicUrl.startsWith('https:'),
          maxAge: 600,
        });
        return reply.redirect(url);
      } catch (err) {
        req.log.warn({ err }, 'OIDC provider unreachable');
        return reply.redirect(`/signin?error=${Errors.oidcFailed.code}`);
      }
    });
    app.get(AuthPaths.oidcCallback, { schema: { tags } }, async (req, reply) => {
      if (!oidc) return reply.redirect(`/signin?error=${Errors.oidcNotConfigured.code}`);
      const url = new URL(req.url, deps.config.publicUrl);
      // A navigation carries no Language header; the browser's Accept-Language is the next best guess.
      const lang = pickLanguage(req.headers.language ?? req.headers['accept-language']);
      const target = await oidc.finish(url, req.cookies[COOKIE], lang);
      reply.clearCookie(COOKIE, { path: cookiePath });
      return reply.redirect(target);
    });
    app.post(
      AuthPaths.oidcExchange,
      { schema: { tags, body: OidcExchangeBody, response: responses(OidcExchangeData) }, ...(strict ? { config: { rateLimit: strict } } : {}) },
      async (req) => ok({ token: await exchangeLandingCode(deps, req.body.code) }),
    );
  };
}
