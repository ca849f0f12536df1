import { sql, type CreateTableBuilder, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Dialect } from './database.js';

/**
 * One list of migrations for SQLite and PostgreSQL, written with Kysely's schema builder. The only
 * difference is how an auto-incrementing key is spelled, so that lives in one helper.
 */
type Builder = CreateTableBuilder<string, never>;

function withId(dialect: Dialect, table: Builder): Builder {
  return dialect === 'postgres'
    ? table.addColumn('id', 'serial', (c) => c.primaryKey())
    : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}

function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_accounts': {
      async up(db: Kysely<unknown>) {
        await withId(dialect, db.schema.createTable('users'))
          .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
          .addColumn('password_hash', 'text')
          .addColumn('first_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('last_name', 'varchar(100)', (c) => c.notNull())
          .addColumn('company', 'varchar(100)', (c) => c.notNull())
          .addColumn('company_id', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('phone', 'varchar(32)', (c) => c.unique())
          .addColumn('landline', 'varchar(32)', (c) => c.notNull().defaultTo(''))
          .addColumn('country', 'varchar(100)', (c) => c.notNull())
          .addColumn('job_title', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('role', 'varchar(8)', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('language', 'varchar(8)', (c) => c.notNull())
          .addColumn('training_priority', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('download_permission', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('oidc_subject', 'varchar(255)')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('activated_at', 'bigint')
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('users_status_idx').on('users').column('status').execute();

        await withId(dialect, db.schema.createTable('sessions'))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('ended_at', 'bigint')
          .addColumn('end_reason', 'varchar(16)')
          .execute();
        await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

        await withId(dialect, db.schema.createTable('one_time_tokens'))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('purpose', 'varchar(16)', (c) => c.notNull())
          .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('used_at', 'bigint')
          .execute();

        await withId(dialect, db.schema.createTable('login_codes'))
          .addColumn('email', 'varchar(320)', (c) => c.notNull())
          .addColumn('code_hash', 'varchar(64)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('used_at', 'bigint')
          .execute();
        await db.schema.createIndex('login_codes_email_idx').on('login_codes').column('email').execute();

        await withId(dialect, db.schema.createTable('outbox'))
          .addColumn('to_address', 'varchar(320)', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('text', 'text', (c) => c.notNull())
          .addColumn('link', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('outbox_to_idx').on('outbox').column('to_address').execute();

        await db.schema
          .createTable('oidc_states')
          .addColumn('state', 'varchar(128)', (c) => c.primaryKey())
          .addColumn('nonce', 'varchar(128)', (c) => c.notNull())
          .addColumn('code_verifier', 'varchar(128)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0002_datasets': {
      async up(db: Kysely<unknown>) {
        await withId(dialect, db.schema.createTable('models'))
          .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('name_key', 'varchar(100)', (c) => c.notNull())
          .addColumn('note', 'varchar(100)', (c) => c.notNull().defaultTo(''))
          .addColumn('code', 'varchar(40)', (c) => c.notNull().unique())
          .addColumn('type', 'varchar(20)', (c) => c.notNull())
          .addColumn('project_status', 'varchar(16)', (c) => c.notNull())
          .addColumn('training_status', 'varchar(16)', (c) => c.notNull())
          .addColumn('test_status', 'varchar(16)', (c) => c.notNull())
          .addColumn('training_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('train_id', 'integer')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('models_owner_name_uq', ['owner_id', 'name_key'])
          .execute();

        await withId(dialect, db.schema.createTable('labels'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('name', 'varchar(100)', (c) => c.notNull())
          .addColumn('name_key', 'varchar(100)', (c) => c.notNull())
          .addColumn('color', 'varchar(7)', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('labels_model_name_uq', ['model_id', 'name_key'])
          .execute();

        await withId(dialect, db.schema.createTable('images'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('name', 'varchar(255)', (c) => c.notNull())
          .addColumn('name_key', 'varchar(255)', (c) => c.notNull())
          .addColumn('kind', 'varchar(8)', (c) => c.notNull())
          .addColumn('width', 'integer', (c) => c.notNull())
          .addColumn('height', 'integer', (c) => c.notNull())
          .addColumn('bytes', 'bigint', (c) => c.notNull())
          .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
          .addColumn('thumb_sha', 'varchar(64)', (c) => c.notNull())
          .addColumn('split', 'varchar(8)', (c) => c.notNull().defaultTo('none'))
          .addColumn('starred', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('annotation_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('class_label_id', 'integer', (c) => c.references('labels.id').onDelete('set null'))
          .addColumn('labeled', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('annotation_version', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('test_state', 'varchar(12)', (c) => c.notNull().defaultTo('untested'))
          .addColumn('test_hits', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('test_result_count', 'integer')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('images_model_sha_uq', ['model_id', 'sha256'])
          .execute();
        // One index per gallery filter, each ending in id so keyset paging (id desc) stays an index walk.
        const imageIndexes: Record<string, string[]> = {
          images_model_id_idx: ['model_id', 'id'],
          images_labeled_idx: ['model_id', 'labeled', 'id'],
          images_starred_idx: ['model_id', 'starred', 'id'],
          images_test_idx: ['model_id', 'test_state', 'test_hits', 'id'],
          images_split_idx: ['model_id', 'split', 'id'],
          // Counting a split together with another filter reads only this index, never the rows.
          images_split_cover_idx: ['model_id', 'split', 'labeled', 'starred', 'test_state', 'test_hits'],
          images_class_idx: ['class_label_id', 'id'],
          // Name search reads names from this index instead of whole rows.
          images_name_idx: ['model_id', 'name_key'],
          images_sha_idx: ['sha256'],
          images_thumb_idx: ['thumb_sha'],
        };
        for (const [name, columns] of Object.entries(imageIndexes)) {
          await db.schema.createIndex(name).on('images').columns(columns).execute();
        }

        await withId(dialect, db.schema.createTable('annotations'))
          .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('current', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('geometry', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('annotations_image_idx').on('annotations').columns(['image_id', 'version']).execute();
        await db.schema.createIndex('annotations_label_idx').on('annotations').columns(['label_id', 'current', 'image_id']).execute();
      },
    },
    '0003_labeling': {
      async up(db: Kysely<unknown>) {
        // 'real' is a 4-byte float on PostgreSQL: areas and confidences want the 8 bytes SQLite's real has.
        const double = dialect === 'postgres' ? 'double precision' : 'real';
        // SQLite adds one column per ALTER TABLE statement.
        await db.schema.alterTable('models').addColumn('data_version', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        // A literal, not LabelingLimits.minAreaDefault: a migration must not change when a constant does. It only
        // fills existing models; createModel writes the current default into new ones.
        await db.schema.alterTable('models').addColumn('min_annotation_area', double, (c) => c.notNull().defaultTo(4)).execute();
        await db.schema.alterTable('users').addColumn('guides_seen', 'text', (c) => c.notNull().defaultTo('')).execute();

        await withId(dialect, db.schema.createTable('test_predictions'))
          .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
          .addColumn('geometry', 'text', (c) => c.notNull())
          .addColumn('confidence', double, (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('test_predictions_image_idx').on('test_predictions').column('image_id').execute();
      },
    },
    '0004_training': {
      async up(db: Kysely<unknown>) {
        // Durable work for the runner: a row outlives the server, so a restart can tell what was cut short.
        await withId(dialect, db.schema.createTable('jobs'))
          .addColumn('kind', 'varchar(16)', (c) => c.notNull())
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          // The account's training priority when queued: changing it later does not reorder queued work.
          .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('state', 'varchar(16)', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('cancel_requested', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('progress', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('started_at', 'bigint')
          .addColumn('finished_at', 'bigint')
          .addColumn('heartbeat_at', 'bigint')
          .execute();
        await db.schema.createIndex('jobs_queue_idx').on('jobs').columns(['state', 'priority', 'created_at', 'id']).execute();
        // One active job of a kind per model, whatever races past the service's check.
        await db.schema
          .createIndex('jobs_active_uq')
          .on('jobs')
          .columns(['model_id', 'kind'])
          .unique()
          .where(sql.ref('state'), 'in', ['queued', 'running'])
          .execute();

        await withId(dialect, db.schema.createTable('dataset_snapshots'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('data_version', 'integer', (c) => c.notNull())
          .addColumn('content_hash', 'varchar(64)', (c) => c.notNull())
          // The COCO manifest (images by blob hash, split per image, annotations, categories) in the blob store.
          .addColumn('manifest_sha', 'varchar(64)', (c) => c.notNull())
          .addColumn('image_count', 'integer', (c) => c.notNull())
          .addColumn('total_images', 'integer', (c) => c.notNull())
          .addColumn('label_count', 'integer', (c) => c.notNull())
          .addColumn('annotation_count', 'integer', (c) => c.notNull())
          .addColumn('split_counts', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('dataset_snapshots_model_hash_uq', ['model_id', 'content_hash'])
          .execute();

        // The image blobs a snapshot trains on: a gallery delete must not remove bytes a snapshot still names.
        await db.schema
          .createTable('snapshot_blobs')
          .addColumn('snapshot_id', 'integer', (c) => c.notNull().references('dataset_snapshots.id').onDelete('cascade'))
          .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
          .addPrimaryKeyConstraint('snapshot_blobs_pk', ['snapshot_id', 'sha256'])
          .execute();
        await db.schema.createIndex('snapshot_blobs_sha_idx').on('snapshot_blobs').columns(['sha256']).execute();

        await withId(dialect, db.schema.createTable('trainings'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('snapshot_id', 'integer', (c) => c.notNull().references('dataset_snapshots.id'))
          .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
          .addColumn('task', 'varchar(8)', (c) => c.notNull())
          .addColumn('parameters', 'text', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('phase', 'varchar(16)', (c) => c.notNull())
          .addColumn('data_version', 'integer', (c) => c.notNull())
          .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('epochs', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('eta_s', dialect === 'postgres' ? 'double precision' : 'real')
          .addColumn('summary', 'text')
          .addColumn('artifacts', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('started_at', 'bigint')
          .addColumn('ended_at', 'bigint')
          .addUniqueConstraint('trainings_model_version_uq', ['model_id', 'version'])
          .execute();

        await withId(dialect, db.schema.createTable('training_epochs'))
          .addColumn('training_id', 'integer', (c) => c.notNull().references('trainings.id').onDelete('cascade'))
          .addColumn('epoch', 'integer', (c) => c.notNull())
          .addColumn('epochs', 'integer', (c) => c.notNull())
          .addColumn('metrics', 'text', (c) => c.notNull())
          .addColumn('eta_s', dialect === 'postgres' ? 'double precision' : 'real')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('training_epochs_uq', ['training_id', 'epoch'])
          .execute();
      },
    },
    '0005_delivery': {
      async up(db: Kysely<unknown>) {
        // Saved /parameter values (only the keys the user set; JSON object).
        await db.schema.alterTable('models').addColumn('parameters', 'text', (c) => c.notNull().defaultTo('{}')).execute();
        await db.schema.alterTable('models').addColumn('parameters_updated_at', 'bigint').execute();
        await db.schema.alterTable('models').addColumn('test_id', 'integer').execute();
        // A failed training whose last checkpoint is kept can resume (DATA_DIR/trainings/<id>).
        await db.schema.alterTable('trainings').addColumn('resumable', 'integer', (c) => c.notNull().defaultTo(0)).execute();

        await withId(dialect, db.schema.createTable('test_runs'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('training_id', 'integer', (c) => c.notNull().references('trainings.id').onDelete('cascade'))
          .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('source', 'varchar(16)', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull())
          .addColumn('image_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('tp', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('fp', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('fn', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('summary', 'text')
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('started_at', 'bigint')
          .addColumn('ended_at', 'bigint')
          .execute();
        await db.schema.createIndex('test_runs_model_idx').on('test_runs').columns(['model_id', 'id']).execute();

        // Per image of a run: the ground truth it was compared with and the counts (predictions are in test_predictions).
        await db.schema
          .createTable('test_run_images')
          .addColumn('test_run_id', 'integer', (c) => c.notNull().references('test_runs.id').onDelete('cascade'))
          .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
          .addColumn('predictions', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('tp', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('fp', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('fn', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('detail', 'text', (c) => c.notNull().defaultTo('{}'))
          .addPrimaryKeyConstraint('test_run_images_pk', ['test_run_id', 'image_id'])
          .execute();
        await db.schema.alterTable('test_predictions').addColumn('test_run_id', 'integer').execute();

        await withId(dialect, db.schema.createTable('model_packs'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('training_id', 'integer', (c) => c.notNull().references('trainings.id').onDelete('cascade'))
          .addColumn('job_id', 'integer', (c) => c.references('jobs.id').onDelete('set null'))
          .addColumn('kind', 'varchar(8)', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('input_w', 'integer', (c) => c.notNull())
          .addColumn('input_h', 'integer', (c) => c.notNull())
          .addColumn('max_det', 'integer', (c) => c.notNull())
          .addColumn('sdk_type', 'varchar(16)')
          .addColumn('rotated', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('artifact_sha', 'varchar(64)')
          .addColumn('file_name', 'varchar(200)')
          .addColumn('bytes', 'bigint')
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('ended_at', 'bigint')
          .execute();
        await db.schema.createIndex('model_packs_model_idx').on('model_packs').columns(['model_id', 'kind', 'id']).execute();
      },
    },
    '0006_measurement': {
      async up(db: Kysely<unknown>) {
        // One row per MEASURE model that has a calibration or tolerances (contracts' measurement.ts).
        await db.schema
          .createTable('measurement_settings')
          .addColumn('model_id', 'integer', (c) => c.primaryKey().references('models.id').onDelete('cascade'))
          .addColumn('mm_per_px', dialect === 'postgres' ? 'double precision' : 'real')
          // The drawn line (JSON CalibrationLine) the scale came from; null when typed in.
          .addColumn('calibration_line', 'text')
          .addColumn('calibration_updated_at', 'bigint')
          // JSON Tolerances; null: nothing is judged.
          .addColumn('tolerances', 'text')
          .addColumn('tolerances_updated_at', 'bigint')
          .execute();
      },
    },
    '0007_multi_label': {
      async up(db: Kysely<unknown>) {
        // Classification models: several classes per image (contracts' ClassificationModeBody).
        await db.schema.alterTable('models').addColumn('multi_label', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        // A multi-label image's classes; single-label images keep theirs in images.class_label_id (a switch moves them).
        await db.schema
          .createTable('image_classes')
          .addColumn('image_id', 'integer', (c) => c.notNull().references('images.id').onDelete('cascade'))
          .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
          .addPrimaryKeyConstraint('image_classes_pk', ['image_id', 'label_id'])
          .execute();
        await db.schema.createIndex('image_classes_label_idx').on('image_classes').columns(['label_id', 'image_id']).execute();
        // 1: the user confirmed the image shows none of the classes (a multi-label negative, trained with an empty set).
        await db.schema.alterTable('images').addColumn('no_class', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      },
    },
    '0008_fair_use_golden': {
      async up(db: Kysely<unknown>) {
        // A job's answer when it has no table of its own (a golden-sample proposal, contracts' GoldenJobData).
        await db.schema.alterTable('jobs').addColumn('result', 'text').execute();
        // Fair use: an account's active jobs are counted on every queueing, and its running ones on every claim.
        await db.schema.createIndex('jobs_owner_idx').on('jobs').columns(['owner_id', 'state', 'started_at']).execute();
      },
    },
    '0010_lockout_blob_guards': {
      async up(db: Kysely<unknown>) {
        // Failed sign-ins per (account, address), and per account with address '' (services/lockout.ts).
        await db.schema
          .createTable('login_failures')
          .addColumn('account', 'varchar(320)', (c) => c.notNull())
          .addColumn('address', 'varchar(64)', (c) => c.notNull())
          .addColumn('failures', 'integer', (c) => c.notNull())
          .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('last_at', 'bigint', (c) => c.notNull())
          // Until when this address counts as the owner's (a sign-in succeeded from it): the account-wide lock skips it.
          .addColumn('trusted_until', 'bigint', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('login_failures_pk', ['account', 'address'])
          .execute();
        await db.schema.createIndex('login_failures_last_idx').on('login_failures').column('last_at').execute();
        // Blob keys an upload is storing: a delete of the same bytes waits for (locks) this row (gallery/blob-cleanup.ts).
        await db.schema
          .createTable('blob_guards')
          .addColumn('sha256', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('claims', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('claimed_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0012_training_advice': {
      async up(db: Kysely<unknown>) {
        // What a training's frozen data looks like to its verdict (services/training/advice.ts): split counts,
        // per-class training instances, labeled box sizes. One row per training, written when it is queued.
        await db.schema
          .createTable('training_advice')
          .addColumn('training_id', 'integer', (c) => c.primaryKey().references('trainings.id').onDelete('cascade'))
          .addColumn('data_stats', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '0014_versions': {
      async up(db: Kysely<unknown>) {
        // The version tests and exports use when none is named (services/versions.ts); null: the latest usable one.
        // No reference: deleting the version clears it in the same transaction.
        await db.schema.alterTable('models').addColumn('default_training_id', 'integer').execute();
        // A version's note (SPEC §5: at most 100 characters).
        await db.schema.alterTable('trainings').addColumn('note', 'text', (c) => c.notNull().defaultTo('')).execute();
      },
    },
    '0015_usage': {
      async up(db: Kysely<unknown>) {
        // The usage ledger: written when a job ends; model_id has no reference, so deleting the model keeps it.
        await withId(dialect, db.schema.createTable('usage'))
          .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('job_id', 'integer', (c) => c.notNull().unique())
          .addColumn('kind', 'varchar(16)', (c) => c.notNull())
          .addColumn('model_id', 'integer', (c) => c.notNull())
          .addColumn('model_name', 'varchar(255)', (c) => c.notNull())
          .addColumn('result', 'varchar(16)', (c) => c.notNull())
          .addColumn('seconds', dialect === 'postgres' ? 'double precision' : 'real', (c) => c.notNull())
          .addColumn('started_at', 'bigint', (c) => c.notNull())
          .addColumn('finished_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('usage_owner_idx').on('usage').columns(['owner_id', 'finished_at']).execute();
      },
    },
    '0016_leases': {
      async up(db: Kysely<unknown>) {
        // Jobs taken by a runner hold a lease (adapters/job-queue-db.ts): which runner, and until when. Only an expired
        // lease lets another process requeue or fail the job, never the start of another process.
        await db.schema.alterTable('jobs').addColumn('lease_owner', 'varchar(64)').execute();
        await db.schema.alterTable('jobs').addColumn('lease_until', 'bigint').execute();
        // A training's last epoch checkpoint lives in the blob store, so any runner can resume it ({ last, best } hashes).
        await db.schema.alterTable('trainings').addColumn('checkpoint', 'text').execute();
      },
    },
    '0017_agent': {
      async up(db: Kysely<unknown>) {
        // Dataset analyses (issue 35): one per analysed manifest (dataset version) of a model; the result is JSON text.
        await withId(dialect, db.schema.createTable('dataset_analyses'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('job_id', 'integer')
          .addColumn('manifest_sha', 'varchar(64)', (c) => c.notNull())
          .addColumn('imgsz', 'integer', (c) => c.notNull())
          .addColumn('status', 'varchar(16)', (c) => c.notNull())
          .addColumn('result', 'text')
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('finished_at', 'bigint')
          .execute();
        await db.schema.createIndex('dataset_analyses_model_idx').on('dataset_analyses').columns(['model_id', 'id']).execute();
        // Agent runs: phase, budget and plan, what each phase decided (JSON texts), the versions and tests it made.
        await withId(dialect, db.schema.createTable('agent_runs'))
          .addColumn('model_id', 'integer', (c) => c.notNull().references('models.id').onDelete('cascade'))
          .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
          .addColumn('job_id', 'integer')
          .addColumn('phase', 'varchar(16)', (c) => c.notNull())
          .addColumn('budget_s', 'integer', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull())
          .addColumn('plan', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('state', 'text', (c) => c.notNull().defaultTo('{}'))
          .addColumn('log', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('started_at', 'bigint')
          .addColumn('deadline_at', 'bigint')
          .addColumn('ended_at', 'bigint')
          .execute();
        await db.schema.createIndex('agent_runs_model_idx').on('agent_runs').columns(['model_id', 'id']).execute();
        await withId(dialect, db.schema.createTable('agent_trials'))
          .addColumn('agent_id', 'integer', (c) => c.notNull().references('agent_runs.id').onDelete('cascade'))
          .addColumn('number', 'integer', (c) => c.notNull())
          .addColumn('params', 'text', (c) => c.notNull())
          .addColumn('state', 'varchar(16)', (c) => c.notNull())
          .addColumn('score', dialect === 'postgres' ? 'double precision' : 'real')
          .addColumn('epochs', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('duration_s', dialect === 'postgres' ? 'double precision' : 'real')
          .execute();
        await db.schema.createIndex('agent_trials_agent_idx').on('agent_trials').columns(['agent_id', 'number']).unique().execute();
        // A version's suggested confidences (SuggestedConfidences JSON) and the agent run that trained it.
        await db.schema.alterTable('trainings').addColumn('suggested_conf', 'text').execute();
        await db.schema.alterTable('trainings').addColumn('agent_id', 'integer').execute();
      },
    },
  };
}

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrations(dialect) };
}
