import { useCallback } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { AuthPaths } from '@loupe/contracts';
import { api } from '@/api/client';
import { useSession } from '@/stores/session';
import { useProject } from '@/stores/project';

/** POST /api/logout, then forget the session locally whatever the server said, and go to /signin. */
export function useSignOut() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return useCallback(async () => {
    try {
      await api.post(AuthPaths.logout, undefined, { silent: true });
    } catch {
      // The session is dropped locally anyway; a failed logout must not keep the user signed in.
    }
    useSession.getState().clear();
    useProject.getState().setProject(null);
    queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== 'config' });
    navigate('/signin', { replace: true });
  }, [navigate, queryClient]);
}
