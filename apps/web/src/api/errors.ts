/** A failed call: the envelope's code and message (already in the user's language) and its data. */
export class ApiError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** True when the client already reacted (dialog, message, silence): callers should not show it again. */
  handled: boolean;

  constructor(code: number, message: string, data: unknown = null, handled = false) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.data = data;
    this.handled = handled;
  }
}

/** Code used when no envelope came back at all (network down, proxy error page). */
export const NETWORK_ERROR_CODE = -1;

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}
