import { Roles } from '@loupe/contracts';
import { isProjectPage } from '@/routes/projectPages';
import { DASHBOARD_PATH, MODEL_LIST_PATH } from '@/routes/table';

/** Which back link a page shows: working pages lead to the model list, administrators elsewhere to the dashboard. */
export function backLinkFor(pathname: string, role: string | undefined): { to: string; label: string } | null {
  if (isProjectPage(pathname)) return { to: MODEL_LIST_PATH, label: 'back.modelList' };
  if (role === Roles.admin && pathname.toLowerCase() !== DASHBOARD_PATH.toLowerCase()) {
    return { to: DASHBOARD_PATH, label: 'back.dashboard' };
  }
  return null;
}
