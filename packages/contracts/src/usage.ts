import { Type, type Static } from 'typebox';

/**
 * Usage (SPEC /usage): a ledger of the account's jobs, one entry written when a training, test or export ends
 * (succeeded, failed or cancelled after it started). Entries keep the model's name, so deleting the model or a
 * version later does not erase what was used.
 */
export const UsagePaths = {
  /** GET UsageQuery → UsageData: the signed-in user's own usage only. */
  usage: '/api/usage',
} as const;

export const UsageKinds = ['training', 'test', 'export'] as const;
export type UsageKind = (typeof UsageKinds)[number];
export const UsageResults = ['succeeded', 'failed', 'cancelled'] as const;
export type UsageResult = (typeof UsageResults)[number];

/** Period: entries that ended at or after `from` and before `to` (epoch ms); both optional. */
export const UsageQuery = Type.Object({
  from: Type.Optional(Type.Integer({ minimum: 0 })),
  to: Type.Optional(Type.Integer({ minimum: 0 })),
  /** How many of the latest entries to list (default 50). */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
export type UsageQuery = Static<typeof UsageQuery>;

export const UsageEntry = Type.Object({
  id: Type.Integer(),
  kind: Type.Enum(UsageKinds),
  /** Null when the model has been deleted since. */
  modelId: Type.Union([Type.Integer(), Type.Null()]),
  modelName: Type.String(),
  result: Type.Enum(UsageResults),
  seconds: Type.Number(),
  /** ISO 8601. */
  startedAt: Type.String(),
  finishedAt: Type.String(),
});
export type UsageEntry = Static<typeof UsageEntry>;

export const UsageTotal = Type.Object({
  kind: Type.Enum(UsageKinds),
  count: Type.Integer(),
  hours: Type.Number(),
});
export type UsageTotal = Static<typeof UsageTotal>;

export const UsageMonth = Type.Object({
  /** YYYY-MM (UTC) of the entries' end. */
  month: Type.String(),
  kind: Type.Enum(UsageKinds),
  count: Type.Integer(),
  hours: Type.Number(),
});
export type UsageMonth = Static<typeof UsageMonth>;

export const UsageData = Type.Object({
  /** One row per kind (all three, zero when unused) over the period. */
  totals: Type.Array(UsageTotal),
  /** Per month and kind, newest month first; only months with entries. */
  months: Type.Array(UsageMonth),
  /** The latest entries of the period, newest first. */
  entries: Type.Array(UsageEntry),
});
export type UsageData = Static<typeof UsageData>;
