import { Headers as HeaderNames, RELOGIN_CODES, type ApiResponse } from '@loupe/contracts';
import i18n, { currentLanguage } from '@/i18n';
import { getSession } from '@/stores/session';
import { ApiError, NETWORK_ERROR_CODE } from './errors';
import { react } from './reactions';

export { ApiError, isApiError } from './errors';

type Params = Record<string, string | number | boolean | null | undefined>;

export interface CallOptions {
  /** The caller shows errors itself (forms put them on fields): only the relogin dialog still opens. */
  silent?: boolean;
  signal?: AbortSignal;
}
export interface GetOptions extends CallOptions {
  params?: Params;
}
export interface PostOptions extends CallOptions {
  /** Send application/x-www-form-urlencoded instead of JSON (SPEC §7: code login). */
  form?: boolean;
}

function withParams(path: string, params?: Params): string {
  if (!params) return path;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) query.append(key, String(value));
  }
  const text = query.toString();
  if (!text) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${text}`;
}

function encodeBody(body: unknown, form: boolean): { body?: BodyInit; type?: string } {
  if (body === undefined) return {};
  if (body instanceof FormData) return { body };
  if (form) {
    const entries = Object.entries(body as Record<string, unknown>)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => [k, String(v)]);
    return { body: new URLSearchParams(entries), type: 'application/x-www-form-urlencoded' };
  }
  return { body: JSON.stringify(body), type: 'application/json' };
}

async function readEnvelope(res: Response): Promise<ApiResponse<unknown>> {
  try {
    const parsed = (await res.json()) as Partial<ApiResponse<unknown>>;
    if (typeof parsed.code === 'number') {
      return { code: parsed.code, message: parsed.message ?? '', data: parsed.data ?? null };
    }
  } catch {
    // Not JSON: a proxy page or an empty body; reported below with the HTTP status.
  }
  return { code: res.ok ? NETWORK_ERROR_CODE : res.status, message: i18n.t('common:errors.badResponse'), data: null };
}

async function request<T>(method: string, path: string, body: unknown, options: PostOptions = {}): Promise<T> {
  const headers: Record<string, string> = { [HeaderNames.language]: currentLanguage() };
  const token = getSession().token;
  if (token) headers[HeaderNames.token] = token;
  const encoded = encodeBody(body, options.form ?? false);
  if (encoded.type) headers['Content-Type'] = encoded.type;

  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: encoded.body, signal: options.signal });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(NETWORK_ERROR_CODE, i18n.t('common:errors.network'));
  }
  const envelope = await readEnvelope(res);
  if (envelope.code === 0) return envelope.data as T;

  const error = new ApiError(envelope.code, envelope.message, envelope.data);
  if (!options.silent || RELOGIN_CODES.includes(error.code)) react(error);
  throw error;
}

/** The one HTTP client (ARCHITECTURE: front-end conventions). Resolves with the envelope's data. */
export const api = {
  get: <T>(path: string, options: GetOptions = {}) => request<T>('GET', withParams(path, options.params), undefined, options),
  post: <T>(path: string, body?: unknown, options: PostOptions = {}) => request<T>('POST', path, body, options),
  put: <T>(path: string, body?: unknown, options: CallOptions = {}) => request<T>('PUT', path, body, options),
  delete: <T>(path: string, options: CallOptions = {}) => request<T>('DELETE', path, undefined, options),
};
