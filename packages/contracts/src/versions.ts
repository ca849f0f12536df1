import { Type, type Static } from 'typebox';
import { SuggestedConfidences } from './agent.js';
import { TrainingData, TrainingDetailData } from './training.js';

/**
 * A model's versions (SPEC §2 /modelManagement, /train2; issue 31 item 4). A version is one training. The
 * default version is the one tests, exports (and later stations) use when the request names none; without a
 * chosen default, or once the chosen one is deleted, it is the latest succeeded version with weights.
 */
export const VersionPaths = {
  /** GET → VersionListData (newest first). */
  list: '/api/models/:modelId/versions',
  /** PUT VersionDefaultBody → VersionListData. trainingId null: back to "the latest succeeded". */
  default: '/api/models/:modelId/versions/default',
  /** GET ?a=&b= (training ids of this model) → VersionCompareData. */
  compare: '/api/models/:modelId/versions/compare',
  /** DELETE → VersionListData (refused while it trains, tests or exports). */
  one: '/api/models/:modelId/versions/:trainingId',
  /** PUT VersionNoteBody → VersionData. */
  note: '/api/models/:modelId/versions/:trainingId/note',
} as const;

/** SPEC §5: a note is at most 100 characters. */
export const VersionNoteMax = 100;

const NullId = Type.Union([Type.Integer(), Type.Null()]);

export const VersionData = Type.Object({
  ...TrainingData.properties,
  note: Type.String(),
  /** The version the user chose as default. */
  isDefault: Type.Boolean(),
  /** The version a test or export without a named version uses now (the chosen default, else the latest usable). */
  inUse: Type.Boolean(),
  /** The confidences suggested by the agent's auto test (trainings.suggested_conf; issue 35); null when none. */
  suggested: Type.Optional(Type.Union([SuggestedConfidences, Type.Null()])),
});
export type VersionData = Static<typeof VersionData>;

export const VersionListData = Type.Object({
  items: Type.Array(VersionData),
  /** Chosen by the user; null: none chosen (the latest succeeded one is used). */
  defaultTrainingId: NullId,
  /** What tests and exports use when no version is named; null: no usable version. */
  effectiveTrainingId: NullId,
});
export type VersionListData = Static<typeof VersionListData>;

/**
 * A type list, not a union: the server's validator coerces, and under a union `null` became 0 for the integer
 * branch (training.ts ParamValue has the same note).
 */
export const VersionDefaultBody = Type.Object({ trainingId: Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1 }) });
export type VersionDefaultBody = Static<typeof VersionDefaultBody>;

export const VersionNoteBody = Type.Object({ note: Type.String({ maxLength: 1000 }) });
export type VersionNoteBody = Static<typeof VersionNoteBody>;

export const VersionCompareQuery = Type.Object({ a: Type.Integer({ minimum: 1 }), b: Type.Integer({ minimum: 1 }) });
export type VersionCompareQuery = Static<typeof VersionCompareQuery>;

const ParamValueOrNull = Type.Union([Type.Number(), Type.Boolean(), Type.String(), Type.Null()]);

/** One training parameter that differs; null: the version did not set it (its default applied). */
export const ParamDifference = Type.Object({ key: Type.String(), a: ParamValueOrNull, b: ParamValueOrNull });
export type ParamDifference = Static<typeof ParamDifference>;

/** One class's metric in both versions (null: the class or the metric is missing in that version). */
export const ClassDifference = Type.Object({
  name: Type.String(),
  metric: Type.String(),
  a: Type.Union([Type.Number(), Type.Null()]),
  b: Type.Union([Type.Number(), Type.Null()]),
});
export type ClassDifference = Static<typeof ClassDifference>;

export const VersionCompareData = Type.Object({
  a: TrainingDetailData,
  b: TrainingDetailData,
  /** Only the parameters whose values differ, by key. */
  params: Type.Array(ParamDifference),
  /** Per class: each metric of the final evaluation (detect AP50/AP50_95, classify precision/recall/f1, segment IoU/dice…). */
  perClass: Type.Array(ClassDifference),
});
export type VersionCompareData = Static<typeof VersionCompareData>;
