import { Roles, type ProjectStatus } from '@loupe/contracts';
import { isProjectPage, firstSegment } from './projectPages';
import { stepPath } from './steps';
import { DASHBOARD_PATH, MODEL_LIST_PATH, NOT_FOUND_PATH, findRoute, type Deployment } from './table';

export interface GuardContext {
  pathname: string;
  deployment: Deployment;
  token: string | null;
  role: string | undefined;
  project: { type?: string; projectStatus?: ProjectStatus } | null;
}

/** Where a signed-out user goes (SPEC §2). */
export function signInPath(deployment: Deployment): string {
  return deployment === 'private' ? '/signinEmail' : '/signin-home';
}

/** The one step a locked project may open: /test while testing, /train while training. */
function lockedStep(status: ProjectStatus | undefined): 'test' | 'train' | null {
  if (status === 'testing') return 'test';
  if (status === 'training') return 'train';
  return null;
}

/** A project page other than the running step; non-project pages stay reachable so the user can leave. */
export function projectLockRedirect(ctx: GuardContext): string | null {
  const step = lockedStep(ctx.project?.projectStatus);
  if (!step || !isProjectPage(ctx.pathname)) return null;
  if (firstSegment(ctx.pathname) === step) return null;
  // /monitor only watches the running job (issue 31 item 3): it stays open while the project is locked.
  if (firstSegment(ctx.pathname) === 'monitor') return null;
  return stepPath(step, ctx.project?.type);
}

/**
 * Decide where a navigation ends (SPEC §2, §6): null to open the page, else the path to redirect to.
 * Order matters: unknown paths first, then sign-in, then role rules, then the project lock.
 */
export function guard(ctx: GuardContext): string | null {
  const route = findRoute(ctx.pathname, ctx.deployment);
  if (!route) return NOT_FOUND_PATH;
  const signedIn = Boolean(ctx.token);

  if (!signedIn) {
    if (route.open && !route.requireAuth) return null;
    return signInPath(ctx.deployment);
  }
  if (route.path === '/signin') return MODEL_LIST_PATH;
  if (route.path === DASHBOARD_PATH && ctx.role === Roles.user) return MODEL_LIST_PATH;
  if (route.requireAuth && ctx.role !== Roles.admin) return MODEL_LIST_PATH;
  return projectLockRedirect(ctx);
}
