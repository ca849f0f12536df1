import { Errors, type ErrorDef, type ErrorName } from '@loupe/contracts';

/** Field names and reasons travel as keys; the error handler translates them for the caller. */
export type ErrorVars = Record<string, string | number>;

/** A catalogue error (contracts' Errors). Services throw it; the central handler renders the envelope. */
export class AppError extends Error {
  readonly def: ErrorDef;
  constructor(
    readonly key: ErrorName,
    readonly vars: ErrorVars = {},
    readonly data: Record<string, unknown> | null = null,
  ) {
    super(key);
    this.def = Errors[key];
  }
}

export function fail(name: ErrorName, vars?: ErrorVars, data?: Record<string, unknown>): never {
  throw new AppError(name, vars, data ?? null);
}

/** fieldRequired for a field key (translated by the handler). */
export function required(field: string): never {
  return fail('fieldRequired', { field });
}
