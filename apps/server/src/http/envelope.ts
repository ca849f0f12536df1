import { Envelope, ErrorEnvelope } from '@loupe/contracts';
import type { TSchema } from 'typebox';

/** The success envelope; code 0. */
export function ok<T>(data: T): { code: 0; message: string; data: T } {
  return { code: 0, message: 'ok', data };
}

/** Response schemas of a route: its data on 200, the error envelope otherwise (also for OpenAPI). */
export function responses<T extends TSchema>(data: T) {
  return { 200: Envelope(data), '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };
}
