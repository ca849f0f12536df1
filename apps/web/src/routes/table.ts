import { TYPED_STEPS } from '@loupe/contracts';
import { STEP_SEGMENTS } from './steps';

/**
 * The one route table (SPEC §2). Pure data: the guard, the tests and the React router all read it.
 * - public: opens without a session, inside the public layout (root font scaled to the window height)
 * - standalone: full page without the sidebar
 * - layout: sidebar + top bar + main area
 */
export type RouteKind = 'public' | 'standalone' | 'layout';

export interface RouteDef {
  path: string;
  kind: RouteKind;
  /** Key in the `routes` namespace for the page title. */
  title: string;
  /** Opens without a session (every public route, and the marketing standalone pages). */
  open?: boolean;
  /** Back-office page: needs role '1' (SPEC §6). */
  requireAuth?: boolean;
  /** Only in private deployments. */
  privateOnly?: boolean;
  /** Redirect instead of a page. */
  redirect?: string;
  /** Model-type child of a typed data step (/mark/ocr → 'ocr'). */
  segment?: string;
}

/** Auth screens built by the account pages; the shell mounts them by path. */
export const AUTH_PATHS = [
  '/signin', '/signin-home', '/signup', '/signupEmail', '/signupPhone', '/send-verify', '/set-password',
  '/finish-register-info', '/signinEmail', '/signinEmailPassword', '/signinVerify', '/signinPhone',
  '/signinPhonePassword', '/send-verify-phone', '/registered/check', '/registered/comfirm', '/forget',
  '/forgetjudge', '/forgetEmail', '/forgetPhone', '/forgetVerify', '/forget-set-password', '/logging',
  '/PassiveRegister',
] as const;

const titleOf = (path: string) => path.slice(1).replace(/[/-](\w)/g, (_, c: string) => c.toUpperCase()) || 'root';

const pub = (path: string): RouteDef => ({ path, kind: 'public', title: titleOf(path), open: true });
const standalone = (path: string, open: boolean): RouteDef => ({ path, kind: 'standalone', title: titleOf(path), open });
const page = (path: string, extra: Partial<RouteDef> = {}): RouteDef => ({
  path,
  kind: 'layout',
  title: titleOf(path),
  ...extra,
});

const PUBLIC: RouteDef[] = [
  { path: '/', kind: 'public', title: 'root', open: true, redirect: '/signin' },
  ...AUTH_PATHS.map(pub),
  pub('/loading-page'),
  pub('/editAuthorization'),
];

/** The model list and usage need a session; the marketing and info pages do not. */
const STANDALONE: RouteDef[] = [
  standalone('/agentList', false),
  standalone('/usage', false),
  ...['/forgetapp', '/pricing', '/RegisteredB', '/ocrDetails', '/segmentationDetails', '/detectionDetails',
    '/outerDetails', '/cameraIndex', '/cameraShow', '/applicationIndex', '/applicationShow', '/aboutMy',
    '/joinMy', '/404'].map((p) => standalone(p, true)),
];

/** Each data step plus one child per model type: /mark, /mark/ocr, /mark/segmentation, … */
const DATA_STEPS: RouteDef[] = TYPED_STEPS.flatMap((step) => [
  page(`/${step}`),
  ...STEP_SEGMENTS.map((segment) => page(`/${step}/${segment}`, { title: step, segment })),
]);

const DOWNLOAD: RouteDef[] = [
  page('/download', { redirect: '/download/downloadImage' }),
  page('/download/downloadImage', { title: 'downloadImage' }),
  page('/download/downloadModel', { title: 'downloadModel' }),
  page('/download/downloadSDK', { title: 'downloadSDK' }),
];

const OTHERS: RouteDef[] = [
  '/dashboard', '/gallery', '/agent', '/statistics', '/parameter', '/monitor', '/model', '/train2', '/publish', '/profile',
  '/changePassword', '/modelDevelopmentTool', '/client', '/sdkManagement', '/createRepeatDev', '/repeatDev',
  '/customRepeatDev', '/app3d', '/modelManagement', '/creatModel', '/creatModel2', '/d3creatModel',
].map((p) => page(p));

const PRIVATE_EXTRAS: RouteDef[] = ['/pointCloud', '/position', '/match', '/d3download'].map((p) =>
  page(p, { privateOnly: true }),
);

const BACK_OFFICE: RouteDef[] = [
  '/backStageManagement', '/userManagement', '/authorization', '/creatAuthorization', '/analysis',
  '/adjustmentRecord', '/enumManagement', '/roleManagement', '/modellabel', '/casequery',
  '/organizationManagement', '/operatorManagement', '/communityProjectManagement', '/communityDetails',
  '/communityrelease', '/communitedit',
].map((p) => page(p, { requireAuth: true }));

export const ROUTES: readonly RouteDef[] = [
  ...PUBLIC,
  ...STANDALONE,
  ...DATA_STEPS,
  ...DOWNLOAD,
  ...OTHERS,
  ...PRIVATE_EXTRAS,
  ...BACK_OFFICE,
];

export type Deployment = 'cloud' | 'private';

/** The route set of a deployment: private extras exist only in private deployments (SPEC §2). */
export function routesFor(deployment: Deployment): RouteDef[] {
  return ROUTES.filter((r) => !r.privateOnly || deployment === 'private');
}

const byPath = new Map(ROUTES.map((r) => [r.path.toLowerCase(), r]));

/** The route a location path belongs to, ignoring a trailing slash (the router matches case-insensitively). */
export function findRoute(pathname: string, deployment: Deployment): RouteDef | undefined {
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const route = byPath.get(clean.toLowerCase());
  return route && (!route.privateOnly || deployment === 'private') ? route : undefined;
}

export const NOT_FOUND_PATH = '/404';
export const MODEL_LIST_PATH = '/agentList';
export const DASHBOARD_PATH = '/dashboard';
