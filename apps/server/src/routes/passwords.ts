import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AuthPaths, ChangePasswordBody, EmailBody, ResetBody, SetPasswordBody, TokenBody } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { changePassword, checkResetToken, forgotPassword, resetPassword, setPassword } from '../services/passwords.js';

/** Forgot/reset (by mailed link), set (no password yet) and change password. */
export function passwordRoutes(deps: Deps, strict: { max: number; timeWindow: number }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['password'];
    const done = responses(Type.Null());
    app.post(AuthPaths.forgot, { schema: { tags, body: EmailBody, response: done }, config: { rateLimit: strict } }, async (req) => {
      await forgotPassword(deps, req.body.email);
      return ok(null);
    });
    app.post(AuthPaths.resetCheck, { schema: { tags, body: TokenBody, response: done }, config: { rateLimit: strict } }, async (req) => {
      await checkResetToken(deps, req.body.token.trim());
      return ok(null);
    });
    app.post(AuthPaths.reset, { schema: { tags, body: ResetBody, response: done }, config: { rateLimit: strict } }, async (req) => {
      await resetPassword(deps, { ...req.body, token: req.body.token.trim() });
      return ok(null);
    });
    app.post(
      AuthPaths.setPassword,
      { schema: { tags, body: SetPasswordBody, response: done }, preHandler: requireUser(deps) },
      async (req) => {
        await setPassword(deps, userOf(req), req.body);
        return ok(null);
      },
    );
    app.post(
      AuthPaths.changePassword,
      { schema: { tags, body: ChangePasswordBody, response: done }, preHandler: requireUser(deps) },
      async (req) => {
        await changePassword(deps, userOf(req), req.body);
        return ok(null);
      },
    );
  };
}
