import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { Roles, type LoginData } from '@loupe/contracts';
import { currentLanguage, isLanguage, setLanguage } from '@/i18n';
import { useSession } from '@/stores/session';

/** Where a user lands after signing in (SPEC §2, §6): administrators on the dashboard, users on their models. */
export function homeFor(role: string): string {
  return role === Roles.admin ? '/dashboard' : '/agentList';
}

/**
 * The account's saved language (chosen on /profile, or at sign-up) wins over the one the sign-in page was
 * shown in, so every device the account signs in on speaks it (issue 31 item 6).
 */
export function applyAccountLanguage(language: unknown): void {
  if (isLanguage(language) && language !== currentLanguage()) void setLanguage(language);
}

/** Stores a successful login, applies the account's language and moves on to the user's home page. */
export function useSignedIn() {
  const setLogin = useSession((s) => s.setLogin);
  const navigate = useNavigate();
  return useCallback(
    (data: LoginData) => {
      setLogin(data);
      applyAccountLanguage(data.language);
      navigate(homeFor(data.role), { replace: true });
    },
    [setLogin, navigate],
  );
}
