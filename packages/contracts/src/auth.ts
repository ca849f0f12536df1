import { Type, type Static } from 'typebox';
import { Limits, AccountStatuses, LANGUAGES } from './limits.js';

/**
 * Account and session calls. Paths of SPEC §7 are kept exactly; the rest follow their style under /api.
 * Field checks here are shape-only; the server applies the §5 rules itself so that each failure gets its own
 * catalogue message (errors.ts) in the caller's language.
 */
export const AuthPaths = {
  login: '/api/login',
  codeLogin: '/api/email_or_phone/login',
  sendCode: '/api/email_or_phone/send_code',
  userInfo: '/api/vue-admin-template/user/info',
  logout: '/api/logout',
  register: '/api/register',
  activate: '/api/register/activate',
  resendActivation: '/api/register/resend',
  forgot: '/api/password/forgot',
  resetCheck: '/api/password/reset/check',
  reset: '/api/password/reset',
  setPassword: '/api/password/set',
  changePassword: '/api/password/change',
  config: '/api/config',
  oidcStart: '/api/auth/oidc/start',
  oidcCallback: '/api/auth/oidc/callback',
  /** POST OidcExchangeBody → OidcExchangeData: the one-time code of /logging?code=… for the session token. */
  oidcExchange: '/api/auth/oidc/exchange',
  adminAccounts: '/api/admin/accounts',
  adminApprove: '/api/admin/accounts/:id/approve',
  adminReject: '/api/admin/accounts/:id/reject',
  adminOutbox: '/api/admin/outbox',
  adminAccountSettings: '/api/admin/accounts/:id/settings',
  /** GET AdminOutboxPageQuery → OutboxPage: the outbox page of /userManagement. */
  adminOutboxPage: '/api/admin/outbox/page',
  /** POST → OutboxResendData: the mail sent again through the mailer (a fresh activation link when the old one expired). */
  adminOutboxResend: '/api/admin/outbox/:id/resend',
  profile: '/api/profile',
  health: '/api/health',
  docs: '/api/docs',
} as const;

const Str = Type.String();
// Type.Enum keeps the literal union in Static<> (a mapped Type.Union over an array infers never).
const Lang = Type.Enum(LANGUAGES);

const MenuEntrySchema = Type.Object({
  id: Str,
  icon: Str,
  permissionName: Str,
  route: Str,
  children: Type.Optional(Type.Array(Type.Object({ id: Str, icon: Str, permissionName: Str, route: Str }))),
});

export const UserInfoRecord = Type.Object({
  user_id: Type.Integer(),
  email: Str,
  name: Str,
  created_at: Str,
  phone: Str,
  company: Str,
});

/** POST /api/login */
export const LoginBody = Type.Object({ username: Str, password: Str });
export type LoginBody = Static<typeof LoginBody>;

/** POST /api/email_or_phone/login (form-encoded). Exactly one of email or phone. */
export const CodeLoginBody = Type.Object({
  email: Type.Optional(Str),
  phone: Type.Optional(Str),
  code: Str,
});
export type CodeLoginBody = Static<typeof CodeLoginBody>;

/** POST /api/email_or_phone/send_code: purpose login sends a sign-in code. */
export const SendCodeBody = Type.Object({ email: Type.Optional(Str), phone: Type.Optional(Str) });
export type SendCodeBody = Static<typeof SendCodeBody>;
export const SendCodeData = Type.Object({ resendAfterS: Type.Integer() });

export const LoginData = Type.Object({
  token: Str,
  username: Str,
  email: Str,
  companyName: Str,
  isprivate: Type.Boolean(),
  role: Str,
  roleName: Str,
  language: Lang,
  menus: Type.Array(MenuEntrySchema),
  user_info: UserInfoRecord,
});
export type LoginData = Static<typeof LoginData>;

/** GET /api/vue-admin-template/user/info?token=… */
export const UserInfoData = Type.Object({
  name: Str,
  avatar: Str,
  email: Str,
  companyName: Str,
  isprivate: Type.Boolean(),
  salesman: Str,
  role: Str,
  roleName: Str,
  language: Lang,
  menus: Type.Array(MenuEntrySchema),
  user_info: UserInfoRecord,
  downloadPermission: Type.Boolean(),
  trainingPriority: Type.Integer(),
});
export type UserInfoData = Static<typeof UserInfoData>;

/** POST /api/register (SPEC §3 registration fields). */
export const RegisterBody = Type.Object({
  firstName: Str,
  lastName: Str,
  email: Str,
  password: Str,
  confirmPassword: Str,
  company: Str,
  phone: Str,
  country: Str,
  jobTitle: Type.Optional(Str),
  language: Type.Optional(Lang),
});
export type RegisterBody = Static<typeof RegisterBody>;

export const TokenBody = Type.Object({ token: Str });
/** Single sign-on lands on /logging?code=…: a one-time code (short-lived, single use), never the token itself. */
export const OidcExchangeBody = Type.Object({ code: Str });
export type OidcExchangeBody = Static<typeof OidcExchangeBody>;
export const OidcExchangeData = Type.Object({ token: Str });
export type OidcExchangeData = Static<typeof OidcExchangeData>;
export const EmailBody = Type.Object({ email: Str });
export const ResetBody = Type.Object({ token: Str, password: Str, confirmPassword: Str });
export type ResetBody = Static<typeof ResetBody>;
export const ChangePasswordBody = Type.Object({ oldPassword: Str, password: Str, confirmPassword: Str });
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const AccountStatusSchema = Type.Enum(AccountStatuses);
export const ActivateData = Type.Object({ status: AccountStatusSchema });

export const AdminAccount = Type.Object({
  id: Type.Integer(),
  email: Str,
  firstName: Str,
  lastName: Str,
  company: Str,
  phone: Str,
  country: Str,
  jobTitle: Str,
  status: AccountStatusSchema,
  role: Str,
  createdAt: Str,
  /** Per-account flags the back office sets (SPEC §6); always sent by the server. */
  downloadPermission: Type.Optional(Type.Boolean()),
  trainingPriority: Type.Optional(Type.Integer()),
});
export type AdminAccount = Static<typeof AdminAccount>;

/** PUT /api/admin/accounts/:id/settings: download permission and training priority of one account. */
export const AdminAccountSettingsBody = Type.Object({
  downloadPermission: Type.Optional(Type.Boolean()),
  trainingPriority: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
});
export type AdminAccountSettingsBody = Static<typeof AdminAccountSettingsBody>;
/** GET /api/admin/accounts?status=&q=: q matches name, email or company (contains, any case). */
export const AdminAccountsQuery = Type.Object({ status: Type.Optional(AccountStatusSchema), q: Type.Optional(Str) });

export const OutboxMail = Type.Object({
  id: Type.Integer(),
  to: Str,
  subject: Str,
  text: Str,
  link: Type.Union([Str, Type.Null()]),
  createdAt: Str,
});
export type OutboxMail = Static<typeof OutboxMail>;

/** GET /api/config: what the public pages need before sign-in. */
export const PublicConfig = Type.Object({
  deployment: Type.Union([Type.Literal('cloud'), Type.Literal('private')]),
  oidc: Type.Boolean(),
  version: Str,
});
export type PublicConfig = Static<typeof PublicConfig>;

export const PasswordRule = { min: Limits.passwordMin, max: Limits.passwordMax, pattern: Limits.passwordPattern };

/** GET /api/admin/outbox?to=<email> */
export const AdminOutboxQuery = Type.Object({ to: Type.Optional(Str) });

/** GET /api/admin/outbox/page?q=&page=&pageSize=: q matches the address (contains, any case). */
export const AdminOutboxPageQuery = Type.Object({
  q: Type.Optional(Str),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type AdminOutboxPageQuery = Static<typeof AdminOutboxPageQuery>;
export const MailTransport = Type.Union([Type.Literal('outbox'), Type.Literal('smtp')]);
/** Newest first; `transport` says whether mail leaves the server (smtp) or only waits in this outbox. */
export const OutboxPage = Type.Object({
  items: Type.Array(OutboxMail),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  transport: MailTransport,
});
export type OutboxPage = Static<typeof OutboxPage>;
/** POST /api/admin/outbox/:id/resend: freshLink when the old link had expired and a new one was sent instead. */
export const OutboxResendData = Type.Object({ freshLink: Type.Boolean() });
export type OutboxResendData = Static<typeof OutboxResendData>;

/** POST /api/password/set: a signed-in account without a password (e.g. from single sign-on) sets one. */
export const SetPasswordBody = Type.Object({ password: Str, confirmPassword: Str });
export type SetPasswordBody = Static<typeof SetPasswordBody>;

/** GET /api/profile (SPEC §3 profile). `email` and `account` are read-only; so is `downloadPermission`. */
export const ProfileData = Type.Object({
  name: Str,
  firstName: Str,
  lastName: Str,
  company: Str,
  companyId: Str,
  mobile: Str,
  landline: Str,
  email: Str,
  account: Str,
  language: Lang,
  /** Only administrators may change it. */
  trainingPriority: Type.Integer(),
  downloadPermission: Type.Boolean(),
  hasPassword: Type.Boolean(),
});
export type ProfileData = Static<typeof ProfileData>;

/** PUT /api/profile: any subset of the editable fields. Empty mobile or landline clears it. */
export const ProfileUpdateBody = Type.Object({
  firstName: Type.Optional(Str),
  lastName: Type.Optional(Str),
  company: Type.Optional(Str),
  companyId: Type.Optional(Str),
  mobile: Type.Optional(Str),
  landline: Type.Optional(Str),
  language: Type.Optional(Lang),
  trainingPriority: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
});
export type ProfileUpdateBody = Static<typeof ProfileUpdateBody>;

export const HealthData = Type.Object({ status: Type.Literal('ok') });
