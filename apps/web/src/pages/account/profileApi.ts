import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AuthPaths, type Language, type ProfileData, type ProfileUpdateBody, type UserInfoData } from '@loupe/contracts';

/** contracts' Static of the optional language union comes out as `undefined`, so it is typed here. */
export type ProfileUpdate = Omit<ProfileUpdateBody, 'language'> & { language?: Language };
import { api } from '@/api/client';
import { getSession } from '@/stores/session';

export const profileKey = ['profile'] as const;

/** GET /api/profile for the signed-in user. */
export function useProfile(enabled = true) {
  return useQuery({ queryKey: profileKey, queryFn: () => api.get<ProfileData>(AuthPaths.profile), enabled });
}

/** PUT /api/profile; the answer is the stored profile, which replaces the cached one. */
export function useUpdateProfile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: ProfileUpdate) => api.put<ProfileData>(AuthPaths.profile, body, { silent: true }),
    onSuccess: async (data) => {
      if (data && typeof data === 'object') client.setQueryData(profileKey, data);
      else void client.invalidateQueries({ queryKey: profileKey });
      // The session copy (company name, display name, language) feeds the layout; refresh it from the server.
      const { token, setUserInfo } = getSession();
      if (token) {
        await api
          .get<UserInfoData>(AuthPaths.userInfo, { params: { token }, silent: true })
          .then(setUserInfo)
          .catch(() => undefined);
      }
    },
  });
}
