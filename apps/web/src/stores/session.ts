import { create } from 'zustand';
import type { LoginData, MenuEntry, UserInfoData } from '@loupe/contracts';
import { local } from './storage';

/** The signed-in user as the app keeps it (SPEC §3 session/user). */
export interface SessionUser {
  email: string;
  username: string;
  role: string;
  roleName: string;
  menus: MenuEntry[];
  isprivate: boolean;
  companyName: string;
  language: LoginData['language'];
  user_info: LoginData['user_info'];
  avatar?: string;
  salesman?: string;
  downloadPermission?: boolean;
  trainingPriority?: number;
}

export interface SessionState {
  token: string | null;
  user: SessionUser | null;
  setLogin: (data: LoginData) => void;
  setUserInfo: (data: UserInfoData) => void;
  clear: () => void;
}

/** Local-storage keys. Company and role name are kept on their own as SPEC §6/§7 ask. */
export const SessionKeys = {
  token: 'token',
  user: 'user',
  companyName: 'companyName',
  roleName: 'roleName',
} as const;

function persist(token: string | null, user: SessionUser | null): void {
  local.set(SessionKeys.token, token);
  // The user is kept too so that guards and the sidebar can decide on reload before user info returns.
  local.setJson(SessionKeys.user, user);
  local.set(SessionKeys.companyName, user?.companyName ?? null);
  local.set(SessionKeys.roleName, user?.roleName ?? null);
}

/** The fields sign-in and user info share, copied once so the two answers cannot drift apart in the store. */
function common(data: LoginData | UserInfoData) {
  const { email, role, roleName, menus, isprivate, companyName, language, user_info } = data;
  return { email, role, roleName, menus, isprivate, companyName, language, user_info };
}

function fromLogin(data: LoginData): SessionUser {
  return { ...common(data), username: data.username };
}

function fromUserInfo(data: UserInfoData): SessionUser {
  const { avatar, salesman, downloadPermission, trainingPriority } = data;
  return { ...common(data), username: data.name, avatar, salesman, downloadPermission, trainingPriority };
}

function initial(): Pick<SessionState, 'token' | 'user'> {
  const token = local.get(SessionKeys.token);
  return { token, user: token ? local.getJson<SessionUser>(SessionKeys.user) : null };
}

export const useSession = create<SessionState>((set, get) => ({
  ...initial(),
  setLogin: (data) => {
    const user = fromLogin(data);
    persist(data.token, user);
    set({ token: data.token, user });
  },
  setUserInfo: (data) => {
    const user = fromUserInfo(data);
    persist(get().token, user);
    set({ user });
  },
  clear: () => {
    persist(null, null);
    set({ token: null, user: null });
  },
}));

/** Read outside React (HTTP client, guards). */
export const getSession = () => useSession.getState();
