import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AuthPaths, ProfileData, ProfileUpdateBody } from '@loupe/contracts';
import { ok, responses } from '../http/envelope.js';
import { requireUser, userOf } from '../http/auth-hooks.js';
import type { Deps } from '../services/deps.js';
import { updateProfile } from '../services/profile.js';
import { profileData } from '../services/user-view.js';

/** The signed-in user's profile (SPEC §3). */
export function profileRoutes(deps: Deps): FastifyPluginAsyncTypebox {
  return async (app) => {
    const tags = ['profile'];
    app.get(AuthPaths.profile, { schema: { tags, response: responses(ProfileData) }, preHandler: requireUser(deps) }, async (req) =>
      ok(profileData(userOf(req))),
    );
    app.put(
      AuthPaths.profile,
      { schema: { tags, body: ProfileUpdateBody, response: responses(ProfileData) }, preHandler: requireUser(deps) },
      async (req) => ok(await updateProfile(deps, userOf(req), req.body)),
    );
  };
}
