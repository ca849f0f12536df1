import type { ComponentType } from 'react';
import UserManagement from './UserManagement';

/** Back-office screens owned by the account area, keyed by route path. */
export const adminPages: Record<string, ComponentType> = {
  '/userManagement': UserManagement,
};
