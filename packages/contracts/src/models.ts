import { Type, type Static } from 'typebox';
import { Limits } from './limits.js';
import { ModelTypes, ProjectStatuses, type ModelType } from './menus.js';

/**
 * Models (agents/projects, SPEC §3). Every call is scoped to the signed-in account; a model of another
 * account answers notFound. Paths follow the /api style of SPEC §7.
 */
export const ModelPaths = {
  /** GET: list (ModelListQuery → ModelListData); POST: create (ModelCreateBody → ModelData). */
  list: '/api/models',
  /** GET: one model (ModelData); PUT: name/note (ModelUpdateBody → ModelData); DELETE: the model and its data. */
  one: '/api/models/:modelId',
} as const;

export const MODEL_TYPE_NAMES = Object.keys(ModelTypes) as ModelType[];

/** Training states (SPEC §4). Later issues fill them; a new model is notTrained. */
export const TrainingStatuses = ['notTrained', 'queued', 'preparing', 'training', 'succeeded', 'failed', 'cancelled'] as const;
export type TrainingStatus = (typeof TrainingStatuses)[number];
/** Test states (SPEC §4). */
export const TestStatuses = ['notTested', 'queued', 'preparing', 'testing', 'succeeded', 'failed', 'cancelled'] as const;
export type TestStatus = (typeof TestStatuses)[number];

export const ModelSorts = ['name', 'created', 'images'] as const;
export type ModelSort = (typeof ModelSorts)[number];
export const SortOrders = ['asc', 'desc'] as const;

const Str = Type.String();
const Id = Type.Integer({ minimum: 1 });

/** POST /api/models. Name required (trimmed, ≤ 100, unique per account: modelNameExists); note ≤ 100. */
export const ModelCreateBody = Type.Object({
  name: Str,
  type: Type.Enum(MODEL_TYPE_NAMES),
  note: Type.Optional(Str),
});
export type ModelCreateBody = Static<typeof ModelCreateBody>;

/** PUT /api/models/:modelId: any of name and note. */
export const ModelUpdateBody = Type.Object({ name: Type.Optional(Str), note: Type.Optional(Str) });
export type ModelUpdateBody = Static<typeof ModelUpdateBody>;

export const ModelParams = Type.Object({ modelId: Id });
export type ModelParams = Static<typeof ModelParams>;

/** GET /api/models?type=&trainingStatus=&name=&sort=&order=&page=&pageSize= */
export const ModelListQuery = Type.Object({
  type: Type.Optional(Type.Enum(MODEL_TYPE_NAMES)),
  trainingStatus: Type.Optional(Type.Enum(TrainingStatuses)),
  /** Name contains (case-insensitive). */
  name: Type.Optional(Type.String({ maxLength: Limits.textMax })),
  sort: Type.Optional(Type.Enum(ModelSorts)),
  order: Type.Optional(Type.Enum(SortOrders)),
  page: Type.Optional(Type.Integer({ minimum: 1 })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});
export type ModelListQuery = Static<typeof ModelListQuery>;

/**
 * One model: the SPEC §3 project data the web keeps in session storage (id, name, code, type, sidebarType,
 * productType, projectStatus) plus the §3 model fields and the gallery stats.
 */
export const ModelData = Type.Object({
  id: Type.Integer(),
  /** Same as id; SPEC §3 calls it projectId. */
  projectId: Type.Integer(),
  /** Latest training id; null until a first training exists. */
  trainId: Type.Union([Type.Integer(), Type.Null()]),
  name: Str,
  note: Str,
  /** Stable public code of the project (key of the model version map). */
  code: Str,
  type: Type.Enum(MODEL_TYPE_NAMES),
  sidebarType: Type.Integer(),
  /** The lowercased type segment of the step pages (ModelTypes[type].segment). */
  productType: Str,
  projectStatus: Type.Enum(ProjectStatuses),
  trainingStatus: Type.Enum(TrainingStatuses),
  testStatus: Type.Enum(TestStatuses),
  /** ISO 8601. */
  createdAt: Str,
  trainingCount: Type.Integer(),
  labeledImages: Type.Integer(),
  totalImages: Type.Integer(),
  labelCount: Type.Integer(),
  /** True while totalImages < Limits.imagesRecommended: the web shows "at least 30 images recommended". */
  belowRecommendedImages: Type.Boolean(),
  recommendedImages: Type.Integer(),
  /**
   * Raised by every change to annotations, image classes or labels. A training records the value it trained
   * on; when the model's is higher the training is outdated (annotationChanged, 9002, on test and download).
   */
  dataVersion: Type.Integer(),
  /**
   * Classification only: several classes per image (multi-label) instead of one. Switched on /mark
   * (LabelingPaths.classificationMode); false for the other types.
   */
  multiLabel: Type.Boolean(),
});
export type ModelData = Static<typeof ModelData>;

export const ModelListData = Type.Object({
  items: Type.Array(ModelData),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
});
export type ModelListData = Static<typeof ModelListData>;

export const DeletedData = Type.Object({ deleted: Type.Integer() });
export type DeletedData = Static<typeof DeletedData>;
