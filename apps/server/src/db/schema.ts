import type { ColumnType, Generated } from 'kysely';
import type {
  AccountStatus,
  AgentPhase,
  AnalysisStatus,
  TrialState,
  ImageKind,
  ImageTestState,
  Language,
  ModelType,
  ProjectStatus,
  Role,
  Split,
  TestStatus,
  TrainingPhase,
  TrainingTask,
  TrainingStatus,
} from '@loupe/contracts';

/** Timestamps are epoch milliseconds (bigint columns) so both databases compare them the same way. */
type Millis = number;
/** A column the database fills when an insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface UsersTable {
  id: Generated<number>;
  email: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  company: string;
  company_id: string;
  /** Digits with an optional leading +, so equal numbers written differently collide. */
  phone: string | null;
  landline: string;
  country: string;
  job_title: string;
  role: Role;
  status: AccountStatus;
  language: Language;
  training_priority: number;
  /** 0 or 1: SQLite has no boolean. */
  download_permission: number;
  oidc_subject: string | null;
  created_at: Millis;
  activated_at: Millis | null;
  updated_at: Millis;
  /** Comma-separated GuideIds of the first-use guides this user has closed. */
  guides_seen: Defaulted<string>;
}

export type SessionEndReason = 'logout' | 'replaced' | 'revoked';

export interface SessionsTable {
  id: Generated<number>;
  user_id: number;
  token_hash: string;
  created_at: Millis;
  expires_at: Millis;
  ended_at: Millis | null;
  end_reason: SessionEndReason | null;
}

/** oidc: the one-time code of the single sign-on landing (/logging?code=…), exchanged for a session. */
export type TokenPurpose = 'activate' | 'reset' | 'oidc';

export interface OneTimeTokensTable {
  id: Generated<number>;
  user_id: number;
  purpose: TokenPurpose;
  token_hash: string;
  created_at: Millis;
  expires_at: Millis;
  used_at: Millis | null;
}

export interface LoginCodesTable {
  id: Generated<number>;
  email: string;
  code_hash: string;
  created_at: Millis;
  expires_at: Millis;
  attempts: ColumnType<number, number | undefined, number>;
  used_at: Millis | null;
}

export interface OutboxTable {
  id: Generated<number>;
  to_address: string;
  subject: string;
  text: string;
  link: string | null;
  created_at: Millis;
}

export interface OidcStatesTable {
  state: string;
  nonce: string;
  code_verifier: string;
  created_at: Millis;
}

/** A model (agent/project) of one account (SPEC §3). */
export interface ModelsTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  /** Lower-cased name: uniqueness per account ignores case. */
  name_key: string;
  note: string;
  code: string;
  type: ModelType;
  project_status: ProjectStatus;
  training_status: TrainingStatus;
  test_status: TestStatus;
  training_count: ColumnType<number, number | undefined, number>;
  train_id: number | null;
  /** Raised by every change to training data (annotations, classes, labels); trainings record it. */
  data_version: Defaulted<number>;
  /** Smallest shape area a save accepts, image px². */
  min_annotation_area: Defaulted<number>;
  /** Saved /parameter values: a JSON object of only the keys the user set. */
  parameters: Defaulted<string>;
  parameters_updated_at: Defaulted<Millis | null>;
  /** The latest test run (like train_id for trainings). */
  test_id: Defaulted<number | null>;
  /** Classification: 1 when an image holds a set of classes (image_classes) instead of class_label_id. */
  multi_label: Defaulted<number>;
  /** The version tests and exports use when none is named (migration 0014); null: the latest usable one. */
  default_training_id: Defaulted<number | null>;
  created_at: Millis;
  updated_at: Millis;
}

export interface LabelsTable {
  id: Generated<number>;
  model_id: number;
  name: string;
  name_key: string;
  color: string;
  created_at: Millis;
}

/** One gallery image. Blobs are content-addressed: sha256 is the original's key, thumb_sha the thumbnail's. */
export interface ImagesTable {
  id: Generated<number>;
  model_id: number;
  name: string;
  /** Lower-cased name for the case-insensitive name search. */
  name_key: string;
  kind: ImageKind;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  thumb_sha: string;
  split: Defaulted<Split>;
  starred: Defaulted<number>;
  /** Annotations in the current version; kept with `labeled` so the gallery filters are index lookups. */
  annotation_count: Defaulted<number>;
  class_label_id: number | null;
  /** Multi-label classification: 1 when the user confirmed the image shows none of the classes. */
  no_class: Defaulted<number>;
  labeled: Defaulted<number>;
  annotation_version: Defaulted<number>;
  test_state: Defaulted<ImageTestState>;
  /** 1 when the last test found something; 0 otherwise (also untested). */
  test_hits: Defaulted<number>;
  test_result_count: Defaulted<number | null>;
  created_at: Millis;
}

export interface AnnotationsTable {
  id: Generated<number>;
  image_id: number;
  model_id: number;
  label_id: number;
  /** The image's annotation_version this row belongs to; older versions stay as history. */
  version: number;
  /** 1 while the row belongs to the image's current version (the label filter reads it through an index). */
  current: Defaulted<number>;
  geometry: string;
  created_at: Millis;
}

/** One detection of the latest test run on an image (filled by test runs, read by the labeling studio). */
export interface TestPredictionsTable {
  id: Generated<number>;
  image_id: number;
  model_id: number;
  label_id: number;
  geometry: string;
  confidence: number;
  /** The run that wrote it (null for rows from before test runs existed). */
  test_run_id: Defaulted<number | null>;
  created_at: Millis;
}

export type JobKind = 'training' | 'test' | 'export' | 'golden' | 'analysis' | 'agent';
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** Durable work for the runner (payload/progress/error as JSON text). */
export interface JobsTable {
  id: Generated<number>;
  kind: JobKind;
  model_id: number;
  owner_id: number;
  priority: Defaulted<number>;
  state: JobState;
  attempts: Defaulted<number>;
  cancel_requested: Defaulted<number>;
  payload: string;
  progress: Defaulted<string>;
  error: string | null;
  created_at: Millis;
  started_at: Millis | null;
  finished_at: Millis | null;
  heartbeat_at: Millis | null;
  /** JSON answer of a job whose subject has no table (golden: GoldenData); null until it succeeds. */
  result: string | null;
  /** The runner holding the job (migration 0016); null while queued. */
  lease_owner: string | null;
  /** The lease's end (ms): past it, another process may requeue or fail the job. */
  lease_until: Millis | null;
}

/**
 * The usage ledger (services/usage.ts): one row per training, test or export job that ran, written when it ends.
 * No reference to models: deleting a model or a version keeps what was used (model_name is a copy).
 */
export interface UsageTable {
  id: Generated<number>;
  owner_id: number;
  job_id: number;
  kind: 'training' | 'test' | 'export';
  model_id: number;
  model_name: string;
  result: 'succeeded' | 'failed' | 'cancelled';
  /** Wall-clock seconds from the job's start to its end. */
  seconds: number;
  started_at: Millis;
  finished_at: Millis;
}

/** An immutable training dataset: the manifest blob never changes once written. */
export interface SnapshotBlobsTable {
  snapshot_id: number;
  sha256: string;
}

export interface DatasetSnapshotsTable {
  id: Generated<number>;
  model_id: number;
  data_version: number;
  content_hash: string;
  manifest_sha: string;
  /** Images in the snapshot (labeled, in a split) and in the model when frozen. */
  image_count: number;
  total_images: number;
  label_count: number;
  annotation_count: number;
  split_counts: string;
  created_at: Millis;
}

export interface TrainingsTable {
  id: Generated<number>;
  model_id: number;
  version: number;
  snapshot_id: number;
  job_id: number | null;
  /** varchar(8): every TrainingTask fits. */
  task: TrainingTask;
  parameters: string;
  status: TrainingStatus;
  phase: TrainingPhase;
  data_version: number;
  epoch: Defaulted<number>;
  epochs: Defaulted<number>;
  eta_s: number | null;
  summary: string | null;
  /** JSON: blob hashes of the engine's outputs ({ best, results }). */
  artifacts: Defaulted<string>;
  error: string | null;
  /** 1 when failed with its last checkpoint kept (checkpoint): it can resume. */
  resumable: Defaulted<number>;
  /** JSON { last, best? }: blob hashes of the latest epoch checkpoint, so any runner can resume (migration 0016); null when none. */
  checkpoint: string | null;
  /** The user's note on this version (migration 0014), at most VersionNoteMax characters. */
  note: Defaulted<string>;
  /** SuggestedConfidences JSON from the agent's auto test (migration 0017); null when none. */
  suggested_conf: string | null;
  /** The agent run that trained this version (migration 0017); null for a training the user started. */
  agent_id: number | null;
  created_at: Millis;
  started_at: Millis | null;
  ended_at: Millis | null;
}

/** A test of one training on a set of images (SPEC §4 test states). settings/summary are JSON. */
export interface TestRunsTable {
  id: Generated<number>;
  model_id: number;
  training_id: number;
  job_id: number | null;
  status: TestStatus;
  source: 'testSplit' | 'images';
  settings: string;
  image_count: Defaulted<number>;
  done: Defaulted<number>;
  tp: Defaulted<number>;
  fp: Defaulted<number>;
  fn: Defaulted<number>;
  summary: string | null;
  error: string | null;
  created_at: Millis;
  started_at: Millis | null;
  ended_at: Millis | null;
}

/** One image of a test run: counts against its ground truth; `detail` is JSON (ground truth with matches). */
export interface TestRunImagesTable {
  test_run_id: number;
  image_id: number;
  predictions: Defaulted<number>;
  tp: Defaulted<number>;
  fp: Defaulted<number>;
  fn: Defaulted<number>;
  detail: Defaulted<string>;
}

/** An exported model (ONNX) or SDK ZIP (SPEC §3 export, §4 export states, §7 model pack). */
export interface ModelPacksTable {
  id: Generated<number>;
  model_id: number;
  training_id: number;
  job_id: number | null;
  kind: 'model' | 'sdk';
  status: 'packing' | 'success' | 'failed';
  input_w: number;
  input_h: number;
  max_det: number;
  sdk_type: string | null;
  rotated: Defaulted<number>;
  artifact_sha: string | null;
  file_name: string | null;
  bytes: number | null;
  error: string | null;
  created_at: Millis;
  ended_at: Millis | null;
}

/** A training's frozen-data statistics for its verdict (services/training/advice.ts DataStats, JSON). */
export interface TrainingAdviceTable {
  training_id: number;
  data_stats: string;
}

export interface TrainingEpochsTable {
  id: Generated<number>;
  training_id: number;
  epoch: number;
  epochs: number;
  metrics: string;
  eta_s: number | null;
  created_at: Millis;
}

/** A MEASURE model's calibration and tolerances (migration 0006). */
export interface MeasurementSettingsTable {
  model_id: number;
  mm_per_px: number | null;
  calibration_line: string | null;
  calibration_updated_at: Millis | null;
  tolerances: string | null;
  tolerances_updated_at: Millis | null;
}

/** A multi-label classification image's classes (migration 0007). */
export interface ImageClassesTable {
  image_id: number;
  label_id: number;
}

/**
 * Failed sign-ins (password or code) per account (migration 0010): one row per (account, address) and one per
 * account with address '' (all addresses together). services/lockout.ts explains the backoff.
 */
export interface LoginFailuresTable {
  account: string;
  address: string;
  failures: number;
  locked_until: Millis;
  last_at: Millis;
  /** A sign-in succeeded from this address: until then the account-wide lock does not apply to it. */
  trusted_until: Defaulted<Millis>;
}

/**
 * One row per blob key an upload is storing right now (migration 0010): `claims` uploads hold it until their
 * rows commit, so a concurrent delete of the same bytes leaves the file (services/gallery/blob-cleanup.ts).
 */
export interface BlobGuardsTable {
  sha256: string;
  claims: number;
  claimed_at: Millis;
}

/** A dataset analysis (issue 35): the engine's analysis.json of one manifest of the model's data (migration 0017). */
export interface DatasetAnalysesTable {
  id: Generated<number>;
  model_id: number;
  owner_id: number;
  job_id: number | null;
  /** sha256 of the analysed manifest: the dataset version. */
  manifest_sha: string;
  imgsz: number;
  status: AnalysisStatus;
  /** DatasetAnalysis JSON once completed. */
  result: string | null;
  error: string | null;
  created_at: Millis;
  finished_at: Millis | null;
}

/** An agent run (issue 35, SPEC §4 agent phases; migration 0017). settings, plan, state and log are JSON texts. */
export interface AgentRunsTable {
  id: Generated<number>;
  model_id: number;
  owner_id: number;
  job_id: number | null;
  phase: AgentPhase;
  budget_s: number;
  /** { recallTarget, ngLabelIds, earlyStop, language } as started. */
  settings: string;
  /** Seconds planned per working phase. */
  plan: Defaulted<string>;
  /** What the phases decided so far (analysisId, baseParams, chosenParams, adopted, trainingIds, testRunIds, ...): a takeover resumes from it. */
  state: Defaulted<string>;
  /** AgentLogEntry[]. */
  log: Defaulted<string>;
  error: string | null;
  created_at: Millis;
  started_at: Millis | null;
  /** started_at + budget: when the budget ends. */
  deadline_at: Millis | null;
  ended_at: Millis | null;
}

export interface AgentTrialsTable {
  id: Generated<number>;
  agent_id: number;
  number: number;
  params: string;
  state: TrialState;
  score: number | null;
  epochs: Defaulted<number>;
  duration_s: number | null;
}

export interface DB {
  dataset_analyses: DatasetAnalysesTable;
  agent_runs: AgentRunsTable;
  agent_trials: AgentTrialsTable;
  login_failures: LoginFailuresTable;
  blob_guards: BlobGuardsTable;
  image_classes: ImageClassesTable;
  measurement_settings: MeasurementSettingsTable;
  jobs: JobsTable;
  usage: UsageTable;
  dataset_snapshots: DatasetSnapshotsTable;
  snapshot_blobs: SnapshotBlobsTable;
  trainings: TrainingsTable;
  training_epochs: TrainingEpochsTable;
  training_advice: TrainingAdviceTable;
  test_runs: TestRunsTable;
  test_run_images: TestRunImagesTable;
  model_packs: ModelPacksTable;
  models: ModelsTable;
  test_predictions: TestPredictionsTable;
  labels: LabelsTable;
  images: ImagesTable;
  annotations: AnnotationsTable;
  users: UsersTable;
  sessions: SessionsTable;
  one_time_tokens: OneTimeTokensTable;
  login_codes: LoginCodesTable;
  outbox: OutboxTable;
  oidc_states: OidcStatesTable;
}
