import { Roles, type ProfileData, type ProfileUpdateBody } from '@loupe/contracts';
import { fail } from '../errors.js';
import type { User, UserPatch } from '../db/users.js';
import type { Deps } from './deps.js';
import { checkLandline, checkPhone, optionalText, requireText } from './rules.js';
import { profileData } from './user-view.js';

/** PUT /api/profile: email and account never change here; training priority only by administrators. */
export async function updateProfile(deps: Deps, user: User, body: ProfileUpdateBody): Promise<ProfileData> {
  const patch: UserPatch = {};
  if (body.firstName !== undefined) patch.first_name = requireText('firstName', body.firstName);
  if (body.lastName !== undefined) patch.last_name = requireText('lastName', body.lastName);
  if (body.company !== undefined) patch.company = requireText('company', body.company);
  if (body.companyId !== undefined) patch.company_id = optionalText('companyId', body.companyId);
  if (body.landline !== undefined) patch.landline = checkLandline(body.landline);
  if (body.mobile !== undefined) {
    const phone = body.mobile.trim() ? checkPhone('mobile', body.mobile) : null;
    if (phone) {
      const other = await deps.users.findByPhone(phone);
      if (other && other.id !== user.id) fail('phoneRegistered');
    }
    patch.phone = phone;
  }
  if (body.language !== undefined) patch.language = body.language;
  if (body.trainingPriority !== undefined && body.trainingPriority !== user.training_priority) {
    if (user.role !== Roles.admin) fail('forbidden');
    patch.training_priority = body.trainingPriority;
  }
  if (Object.keys(patch).length > 0) {
    patch.updated_at = deps.now();
    await deps.users.update(user.id, patch);
  }
  return profileData({ ...user, ...patch } as User);
}
