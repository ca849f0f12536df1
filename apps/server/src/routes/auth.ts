import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AuthPaths, CodeLoginBody, LoginBody, LoginData, SendCodeBody, SendCodeData, UserInfoData } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { clearFilesCookie, requireUser, tokenOf, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { codeLogin, passwordLogin, sendLoginCode } from '../services/login.js';
import { endSession } from '../services/sessions.js';
import { userInfoData } from '../services/user-view.js';

/** Sign-in, sign-out and the session's user (SPEC §7). */
export function authRoutes(deps: Deps, strict: { max: number; timeWindow: number }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['session'];
    app.post(
      AuthPaths.login,
      { schema: { tags, body: LoginBody, response: responses(LoginData) }, config: { rateLimit: strict } },
      async (req) => ok(await passwordLogin(deps, req.body, req.ip)),
    );
    app.post(
      AuthPaths.sendCode,
      { schema: { tags, body: SendCodeBody, response: responses(SendCodeData) }, config: { rateLimit: strict } },
      async (req) => ok(await sendLoginCode(deps, req.body)),
    );
    app.post(
      AuthPaths.codeLogin,
      { schema: { tags, body: CodeLoginBody, response: responses(LoginData) }, config: { rateLimit: strict } },
      async (req) => ok(await codeLogin(deps, req.body, req.ip)),
    );
    app.post(AuthPaths.logout, { schema: { tags, response: responses(Type.Null()) } }, async (req, reply) => {
      clearFilesCookie(req, reply);
      await endSession(deps, tokenOf(req));
      return ok(null);
    });
    app.get(
      AuthPaths.userInfo,
      {
        schema: { tags, querystring: Type.Object({ token: Type.Optional(Type.String()) }), response: responses(UserInfoData) },
        // The one route that takes `?token=` (SPEC §7); the request log redacts it.
        preHandler: requireUser(deps, { query: true }),
      },
      async (req) => ok(userInfoData(deps.config, userOf(req))),
    );
  };
}
