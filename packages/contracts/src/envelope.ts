import { Type, type Static, type TSchema } from 'typebox';

/** Every response body is `{ code, message, data }`; code 0 is success (ARCHITECTURE.md, API conventions). */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ code: Type.Integer(), message: Type.String(), data });

export const ErrorEnvelope = Type.Object({
  code: Type.Integer(),
  message: Type.String(),
  data: Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })]),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;

export interface ApiResponse<T> {
  code: number;
  message: string;
  data: T;
}

/** Request headers every call sends (SPEC §7). */
export const Headers = { token: 'X-Token', language: 'Language' } as const;
