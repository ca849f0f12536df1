import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Errors, type ErrorName, type Language } from '@loupe/contracts';
import { AppError } from '../errors.js';
import { errorMessage, fieldName, pickLanguage, reasonText } from '../i18n.js';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
}

const reasonByKeyword: Record<string, string> = {
  type: 'type',
  pattern: 'format',
  format: 'format',
  enum: 'enum',
  const: 'enum',
  anyOf: 'enum',
  minimum: 'range',
  maximum: 'range',
  exclusiveMinimum: 'range',
  exclusiveMaximum: 'range',
  minLength: 'length',
  maxLength: 'length',
  additionalProperties: 'unknown',
};

/** A schema-validation failure as a catalogue error naming the field. */
export function fromValidation(errors: AjvError[]): AppError {
  const e = errors[0];
  if (!e) return new AppError('validation', { field: 'body', reason: 'invalid' });
  if (e.keyword === 'required') return new AppError('fieldRequired', { field: String(e.params.missingProperty) });
  const field = e.instancePath.split('/').filter(Boolean).pop() ?? 'body';
  if (e.keyword === 'maxLength' && typeof e.params.limit === 'number') {
    return new AppError('fieldTooLong', { field, max: e.params.limit });
  }
  return new AppError('validation', { field, reason: reasonByKeyword[e.keyword] ?? 'invalid' });
}

/** Field names and reasons are keys until here, where they become the caller's language. */
function render(err: AppError, lang: Language) {
  const vars = { ...err.vars };
  if (typeof vars.field === 'string') vars.field = fieldName(lang, vars.field);
  if (typeof vars.reason === 'string') vars.reason = reasonText(lang, vars.reason);
  return { code: err.def.code, message: errorMessage(lang, err.def.key, vars), data: err.data };
}

function toAppError(error: FastifyError): AppError | null {
  if (error instanceof AppError) return error;
  if (error.validation) return fromValidation(error.validation as AjvError[]);
  const status = error.statusCode ?? 500;
  if (status === 404) return new AppError('notFound');
  if (status === 429) return new AppError('tooManyRequests');
  if (status === 413) return new AppError('validation', { field: 'body', reason: 'length' });
  if (status >= 400 && status < 500) return new AppError('validation', { field: 'body', reason: 'malformed' });
  return null;
}

/** One central handler: every error leaves as the envelope with its catalogue status; 5xx hide internals. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const lang = pickLanguage(req.headers.language);
    const known = toAppError(error);
    if (known) {
      if (known.def.status >= 500) req.log.error({ err: error }, 'request failed');
      // A lockout knows when it ends (services/lockout.ts): say it in the standard header as well as the body.
      const retryAfterS = (known.data as { retryAfterS?: unknown } | undefined)?.retryAfterS;
      if (known.def.status === 429 && typeof retryAfterS === 'number') void reply.header('retry-after', String(Math.ceil(retryAfterS)));
      return reply.status(known.def.status).send(render(known, lang));
    }
    req.log.error({ err: error }, 'unexpected error');
    const name: ErrorName = 'internal';
    return reply.status(Errors[name].status).send(render(new AppError(name), lang));
  });
}
