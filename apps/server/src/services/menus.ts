import {
  ADMIN_MENUS,
  HIDDEN_MENU_GROUPS,
  PRIVATE_HIDDEN_BACKSTAGE,
  Roles,
  USER_MENUS,
  type MenuEntry,
  type Role,
} from '@loupe/contracts';

const hiddenGroups: readonly string[] = HIDDEN_MENU_GROUPS;
const privateHidden: readonly string[] = PRIVATE_HIDDEN_BACKSTAGE;

/** The type 1 (permission) sidebar for a role (SPEC §2): admins get the back office plus the user menus. */
export function menusFor(role: Role, deployment: 'cloud' | 'private'): MenuEntry[] {
  const groups = role === Roles.admin ? [...ADMIN_MENUS, ...USER_MENUS] : [...USER_MENUS];
  return groups
    .filter((g) => !hiddenGroups.includes(g.id))
    .map((g) => ({
      ...g,
      ...(g.children
        ? {
            children: g.children
              .filter((c) => deployment !== 'private' || !privateHidden.includes(c.id))
              .map((c) => ({ id: c.id, icon: c.icon, permissionName: c.permissionName, route: c.route })),
          }
        : {}),
    }));
}
