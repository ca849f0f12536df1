import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  AdminAccount,
  AdminAccountSettingsBody,
  AdminAccountsQuery,
  AdminOutboxPageQuery,
  AdminOutboxQuery,
  AuthPaths,
  OutboxMail,
  OutboxPage,
  OutboxResendData,
} from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireAdmin } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { listAccounts, listOutbox, outboxPage, resendMail, review, updateSettings } from '../services/admin.js';

/** Account review and the mail outbox; administrators (role '1') only. */
export function adminRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['admin'];
    const preHandler = requireAdmin(deps);
    const params = Type.Object({ id: Type.Integer({ minimum: 1 }) });
    app.get(
      AuthPaths.adminAccounts,
      { schema: { tags, querystring: AdminAccountsQuery, response: responses(Type.Array(AdminAccount)) }, preHandler },
      async (req) => ok(await listAccounts(deps, req.query.status, req.query.q)),
    );
    app.post(AuthPaths.adminApprove, { schema: { tags, params, response: responses(AdminAccount) }, preHandler }, async (req) =>
      ok(await review(deps, req.params.id, 'approved')),
    );
    app.post(AuthPaths.adminReject, { schema: { tags, params, response: responses(AdminAccount) }, preHandler }, async (req) =>
      ok(await review(deps, req.params.id, 'rejected')),
    );
    app.put(
      AuthPaths.adminAccountSettings,
      { schema: { tags, params, body: AdminAccountSettingsBody, response: responses(AdminAccount) }, preHandler },
      async (req) => ok(await updateSettings(deps, req.params.id, req.body)),
    );
    app.get(
      AuthPaths.adminOutbox,
      { schema: { tags, querystring: AdminOutboxQuery, response: responses(Type.Array(OutboxMail)) }, preHandler },
      async (req) => ok(await listOutbox(deps, req.query.to)),
    );
    app.get(
      AuthPaths.adminOutboxPage,
      { schema: { tags, querystring: AdminOutboxPageQuery, response: responses(OutboxPage) }, preHandler },
      async (req) => ok(await outboxPage(deps, req.query)),
    );
    app.post(
      AuthPaths.adminOutboxResend,
      { schema: { tags, params, response: responses(OutboxResendData) }, preHandler },
      async (req) => ok(await resendMail(deps, req.params.id)),
    );
  };
}
