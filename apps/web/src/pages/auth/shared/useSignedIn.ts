import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { Roles, type LoginData } from '@loupe/contracts';
import { useSession } from '@/stores/session';

/** Where a user lands after signing in (SPEC §2, §6): administrators on the dashboard, users on their models. */
export function homeFor(role: string): string {
  return role === Roles.admin ? '/dashboard' : '/agentList';
}

/** Stores a successful login and moves on to the user's home page. */
export function useSignedIn() {
  const setLogin = useSession((s) => s.setLogin);
  const navigate = useNavigate();
  return useCallback(
    (data: LoginData) => {
      setLogin(data);
      navigate(homeFor(data.role), { replace: true });
    },
    [setLogin, navigate],
  );
}
