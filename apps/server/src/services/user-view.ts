import { Roles, type LoginData, type ProfileData, type UserInfoData } from '@loupe/contracts';
import type { Config } from '../config.js';
import type { User } from '../db/users.js';
import { menusFor } from './menus.js';

/** Shapes of contracts' LoginData, UserInfoData and ProfileData built from a user row. */

export function displayName(user: User): string {
  return [user.first_name, user.last_name].filter(Boolean).join(' ') || user.email;
}

function userInfoRecord(user: User) {
  return {
    user_id: user.id,
    email: user.email,
    name: displayName(user),
    created_at: new Date(user.created_at).toISOString(),
    phone: user.phone ?? '',
    company: user.company,
  };
}

function roleName(user: User): string {
  return user.role === Roles.admin ? 'admin' : 'user';
}

export function loginData(config: Config, user: User, token: string): LoginData {
  return {
    token,
    username: displayName(user),
    email: user.email,
    companyName: user.company,
    isprivate: config.deployment === 'private',
    role: user.role,
    roleName: roleName(user),
    language: user.language,
    menus: menusFor(user.role, config.deployment),
    user_info: userInfoRecord(user),
  };
}

export function userInfoData(config: Config, user: User): UserInfoData {
  return {
    name: displayName(user),
    avatar: '',
    email: user.email,
    companyName: user.company,
    isprivate: config.deployment === 'private',
    salesman: '',
    role: user.role,
    roleName: roleName(user),
    language: user.language,
    menus: menusFor(user.role, config.deployment),
    user_info: userInfoRecord(user),
    downloadPermission: user.download_permission === 1,
    trainingPriority: user.training_priority,
  };
}

export function profileData(user: User): ProfileData {
  return {
    name: displayName(user),
    firstName: user.first_name,
    lastName: user.last_name,
    company: user.company,
    companyId: user.company_id,
    mobile: user.phone ?? '',
    landline: user.landline,
    email: user.email,
    account: user.email,
    language: user.language,
    trainingPriority: user.training_priority,
    downloadPermission: user.download_permission === 1,
    hasPassword: user.password_hash !== null,
  };
}
