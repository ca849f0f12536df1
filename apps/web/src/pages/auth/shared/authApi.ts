import {
  AuthPaths,
  type ChangePasswordBody,
  type CodeLoginBody,
  type Language,
  type LoginBody,
  type LoginData,
  type OidcExchangeData,
  type PublicConfig,
  type RegisterBody,
  type ResetBody,
  type SendCodeBody,
  type SetPasswordBody,
  type UserInfoData,
} from '@loupe/contracts';
import { api } from '@/api/client';

/**
 * The account calls the public screens make. Every call is `silent`: these screens show the server's answer
 * inline next to the form that caused it, so a toast from the client would say the same thing twice.
 */
const quiet = { silent: true } as const;

export interface ActivateResult {
  status: 'unactivated' | 'pending' | 'approved' | 'rejected';
}

export const authApi = {
  config: () => api.get<PublicConfig>(AuthPaths.config, quiet),
  login: (body: LoginBody) => api.post<LoginData>(AuthPaths.login, body, quiet),
  // SPEC §7: the code login is form-encoded, unlike every other call.
  codeLogin: (body: CodeLoginBody) => api.post<LoginData>(AuthPaths.codeLogin, body, { ...quiet, form: true }),
  sendCode: (body: SendCodeBody) => api.post<{ resendAfterS: number }>(AuthPaths.sendCode, body, quiet),
  userInfo: (token: string) => api.get<UserInfoData>(AuthPaths.userInfo, { ...quiet, params: { token } }),
  // Single sign-on's landing code, spent once, for the session token (never carried in a URL).
  oidcExchange: (code: string) => api.post<OidcExchangeData>(AuthPaths.oidcExchange, { code }, quiet),
  // contracts' Static of the optional language union comes out as `undefined`, hence the explicit type.
  register: (body: Omit<RegisterBody, 'language'> & { language?: Language }) => api.post<unknown>(AuthPaths.register, body, quiet),
  resendActivation: (email: string) => api.post<unknown>(AuthPaths.resendActivation, { email }, quiet),
  activate: (token: string) => api.post<ActivateResult>(AuthPaths.activate, { token }, quiet),
  forgot: (email: string) => api.post<unknown>(AuthPaths.forgot, { email }, quiet),
  // The server takes the token as a POST body (TokenBody), which also keeps it out of access logs.
  resetCheck: (token: string) => api.post<unknown>(AuthPaths.resetCheck, { token }, quiet),
  reset: (body: ResetBody) => api.post<unknown>(AuthPaths.reset, body, quiet),
  setPassword: (body: SetPasswordBody) => api.post<unknown>(AuthPaths.setPassword, body, quiet),
  changePassword: (body: ChangePasswordBody) => api.post<unknown>(AuthPaths.changePassword, body, quiet),
};
