import { GuideIds, type GuideId, type GuidesData } from '@loupe/contracts';
import type { User } from '../../db/users.js';
import type { Deps } from '../deps.js';

/** First-use guides the user has closed, remembered per account so they stay closed on every browser. */
export function guidesSeen(user: User): GuidesData {
  const seen = new Set(user.guides_seen.split(','));
  // Read through the current list: an id a later release drops is simply no longer answered.
  return { seen: GuideIds.filter((g) => seen.has(g)) };
}

export async function markGuideSeen(deps: Deps, user: User, guide: GuideId): Promise<GuidesData> {
  await deps.users.addGuideSeen(user.id, guide);
  const now = await deps.users.findById(user.id);
  return guidesSeen(now ?? user);
}
