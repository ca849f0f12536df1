import { useEffect } from 'react';
import { useQuery } from '@tanstack/react-query';
import { App } from 'antd';
import { AuthPaths, type UserInfoData } from '@loupe/contracts';
import { api, isApiError } from '@/api/client';
import { NETWORK_ERROR_CODE } from '@/api/errors';
import { useTranslation } from '@/i18n';
import { useSession } from '@/stores/session';

/** With a stored token, refresh the user (menus, role) from the server once per token (SPEC §7). */
export function useBoot(): void {
  const token = useSession((s) => s.token);
  const setUserInfo = useSession((s) => s.setUserInfo);
  const clear = useSession((s) => s.clear);
  const { message } = App.useApp();
  const { t } = useTranslation();

  const info = useQuery({
    queryKey: ['userInfo', token],
    queryFn: () => api.get<UserInfoData>(AuthPaths.userInfo, { params: { token }, silent: true }),
    enabled: Boolean(token),
    staleTime: Infinity,
    retry: false,
  });

  useEffect(() => {
    if (info.data) setUserInfo(info.data);
  }, [info.data, setUserInfo]);

  useEffect(() => {
    const error = info.error;
    if (!error) return;
    // The relogin dialog already covers a lost session; a network blip or a 500 must not sign anyone out.
    if (!isApiError(error) || error.handled || error.code === NETWORK_ERROR_CODE || error.code >= 500) return;
    void message.error(t('errors:sessionInvalid'));
    clear();
  }, [info.error, clear, message, t]);
}
