import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ActivateData, AuthPaths, EmailBody, RegisterBody, TokenBody } from '@loupe/contracts';
import { fail } from '../errors.js';
import { pickLanguage } from '../i18n.js';
import { ok, responses } from '../http/envelope.js';
import type { Deps } from '../services/deps.js';
import { activate, register, resendActivation } from '../services/registration.js';

/** Registration by e-mail and its activation link (SPEC §3, §5). */
export function registerRoutes(deps: Deps, strict: { max: number; timeWindow: number }): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['registration'];
    app.post(
      AuthPaths.register,
      {
        schema: { tags, body: RegisterBody, response: responses(Type.Null()) },
        config: { rateLimit: strict },
        // Sign-up by phone (a phone and no email field at all) must say so before the schema asks for an
        // email; the e-mail form sends its blank email field, which stays a missing-field error.
        preValidation: async (req) => {
          const b = (req.body ?? {}) as Record<string, unknown>;
          if (b.email === undefined && String(b.phone ?? '').trim()) fail('phoneNotSupported');
        },
      },
      async (req) => {
        await register(deps, req.body, pickLanguage(req.headers.language));
        return ok(null);
      },
    );
    app.post(
      AuthPaths.activate,
      { schema: { tags, body: TokenBody, response: responses(ActivateData) }, config: { rateLimit: strict } },
      async (req) => {
        const user = await activate(deps, req.body.token.trim());
        return ok({ status: user.status });
      },
    );
    app.post(
      AuthPaths.resendActivation,
      { schema: { tags, body: EmailBody, response: responses(Type.Null()) }, config: { rateLimit: strict } },
      async (req) => {
        await resendActivation(deps, req.body.email);
        return ok(null);
      },
    );
  };
}
