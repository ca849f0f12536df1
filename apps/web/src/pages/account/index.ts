import type { ComponentType } from 'react';
import ChangePassword from './ChangePassword';
import Profile from './Profile';

/** Account screens inside the main layout, keyed by route path. */
export const accountPages: Record<string, ComponentType> = {
  '/profile': Profile,
  '/changePassword': ChangePassword,
};
