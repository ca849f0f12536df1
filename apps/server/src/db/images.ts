import { sql, type Expression, type ExpressionBuilder, type Insertable, type Kysely, type Selectable, type SqlBool } from 'kysely';
import type { ImageFilter, ImageListQuery, Split } from '@loupe/contracts';
import type { DB, ImagesTable } from './schema.js';
import { likeContains } from './like.js';

export type Image = Selectable<ImagesTable>;
export type NewImage = Insertable<ImagesTable>;

const RARE_NAME_MATCHES = 5000;

/**
 * What a gallery page shows of each image: not the blob keys, name key or annotation version, which cost a third
 * of the time to read a page of rows and are never sent.
 */
export const LISTED_COLUMNS = [
  'id',
  'model_id',
  'name',
  'kind',
  'width',
  'height',
  'bytes',
  'split',
  'starred',
  'labeled',
  'annotation_count',
  'class_label_id',
  'test_state',
  'test_result_count',
  'created_at',
  'no_class',
] as const satisfies readonly (keyof ImagesTable)[];
export type ListedImage = Pick<Image, (typeof LISTED_COLUMNS)[number]>;

type Where = (eb: ExpressionBuilder<DB, 'images'>) => Expression<SqlBool>;

/** Each gallery filter as a condition that one of the images indexes answers (see migration 0002). */
const filters: Record<ImageFilter, Where | null> = {
  all: null,
  labeled: (eb) => eb('images.labeled', '=', 1),
  unlabeled: (eb) => eb('images.labeled', '=', 0),
  starred: (eb) => eb('images.starred', '=', 1),
  unstarred: (eb) => eb('images.starred', '=', 0),
  tested: (eb) => eb('images.test_state', '=', 'tested'),
  untested: (eb) => eb('images.test_state', '=', 'untested'),
  unprocessed: (eb) => eb('images.test_state', '=', 'unprocessed'),
  testedWithResults: (eb) => eb.and([eb('images.test_state', '=', 'tested'), eb('images.test_hits', '=', 1)]),
  testedNoResults: (eb) => eb.and([eb('images.test_state', '=', 'tested'), eb('images.test_hits', '=', 0)]),
};

export function imagesRepo(db: Kysely<DB>) {
  /** One page (newest first) out of a known, small set of matching ids. */
  async function pageOfIds(modelId: number, ids: number[], q: ImageListQuery, pageSize: number) {
    const sorted = ids.sort((a, b) => b - a);
    const from = q.after ? sorted.findIndex((id) => id < q.after!) : q.page && q.page > 1 ? (q.page - 1) * pageSize : 0;
    const slice = from < 0 ? [] : sorted.slice(from, from + pageSize);
    const items = slice.length === 0 ? [] : await db.selectFrom('images').select(LISTED_COLUMNS).where('model_id', '=', modelId).where('id', 'in', slice).orderBy('id', 'desc').execute();
    return { items, total: sorted.length };
  }

  const conditions = (modelId: number, q: ImageListQuery, byClass: boolean): Where[] => {
    const out: Where[] = [(eb) => eb('images.model_id', '=', modelId)];
    const f = filters[q.filter ?? 'all'];
    if (f) out.push(f);
    if (q.split) out.push((eb) => eb('images.split', '=', q.split!));
    if (q.name) out.push(() => sql<SqlBool>`images.name_key like ${likeContains(q.name!.toLowerCase())} escape '\\'`);
    if (q.labelId) {
      const labelId = q.labelId;
      // Classification images carry their label as a column (or, multi-label, as image_classes rows); the others
      // through current annotation rows.
      out.push(
        byClass
          ? (eb) =>
              eb.or([
                eb('images.class_label_id', '=', labelId),
                eb('images.id', 'in', eb.selectFrom('image_classes').select('image_classes.image_id').where('image_classes.label_id', '=', labelId)),
              ])
          : (eb) =>
              eb(
                'images.id',
                'in',
                eb.selectFrom('annotations').select('annotations.image_id').where('annotations.label_id', '=', labelId).where('annotations.current', '=', 1),
              ),
      );
    }
    return out;
  };
  return {
    /** One page, newest first, and the count of all matches. */
    async list(modelId: number, q: ImageListQuery, pageSize: number, byClass = false) {
      const where = conditions(modelId, q, byClass);
      const all = (eb: ExpressionBuilder<DB, 'images'>) => eb.and(where.map((w) => w(eb)));
      if (q.name) {
        // A name search reads names from the name index once; when it matches few images, their ids are the
        // whole answer (count and page) and only one page of rows is read.
        const ids = await db.selectFrom('images').select('images.id').where(all).limit(RARE_NAME_MATCHES + 1).execute();
        if (ids.length <= RARE_NAME_MATCHES) return pageOfIds(modelId, ids.map((r) => r.id), q, pageSize);
      }
      const onlyLabel = q.labelId && !byClass && (q.filter ?? 'all') === 'all' && !q.split && !q.name;
      const counted = onlyLabel
        ? await db
            .selectFrom('annotations')
            .where('model_id', '=', modelId)
            .where('label_id', '=', q.labelId!)
            .where('current', '=', 1)
            .select((eb) => eb.fn.count<number>('image_id').distinct().as('n'))
            .executeTakeFirstOrThrow()
        : await db.selectFrom('images').where(all).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const total = Number(counted.n);
      if (total === 0) return { items: [], total };
      let page = db.selectFrom('images').select(LISTED_COLUMNS).where(all);
      if (q.after) page = page.where('images.id', '<', q.after);
      else if (q.page && q.page > 1) {
        // Skip through ids only (an index walk) instead of stepping over whole rows.
        const start = db.selectFrom('images').select('images.id').where(all).orderBy('images.id', 'desc').limit(1).offset((q.page - 1) * pageSize);
        page = page.where('images.id', '<=', start);
      }
      const items = await page.orderBy('images.id', 'desc').limit(pageSize).execute();
      return { items, total };
    },
    find: (modelId: number, id: number) =>
      db.selectFrom('images').selectAll().where('model_id', '=', modelId).where('id', '=', id).executeTakeFirst(),
    byIds: (modelId: number, ids: number[], d: Kysely<DB> = db) =>
      d.selectFrom('images').selectAll().where('model_id', '=', modelId).where('id', 'in', ids).execute(),
    all: (modelId: number, split?: Split) => {
      let q = db.selectFrom('images').selectAll().where('model_id', '=', modelId);
      if (split) q = q.where('split', '=', split);
      return q.orderBy('id').execute();
    },
    byNames: (modelId: number, nameKeys: string[], d: Kysely<DB> = db) =>
      d.selectFrom('images').selectAll().where('model_id', '=', modelId).where('name_key', 'in', nameKeys).execute(),
    async count(modelId: number): Promise<number> {
      const r = await db.selectFrom('images').where('model_id', '=', modelId).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(r.n);
    },
    hashesTaken: async (modelId: number, shas: string[], d: Kysely<DB> = db) =>
      shas.length === 0
        ? new Set<string>()
        : new Set(
            (await d.selectFrom('images').select('sha256').where('model_id', '=', modelId).where('sha256', 'in', shas).execute()).map(
              (r) => r.sha256,
            ),
          ),
    /** Inserts unless the model already has these bytes; answers the new id or null for a duplicate. */
    async insertUnlessDuplicate(d: Kysely<DB>, row: NewImage): Promise<number | null> {
      const r = await d
        .insertInto('images')
        .values(row)
        .onConflict((oc) => oc.columns(['model_id', 'sha256']).doNothing())
        .returning('id')
        .executeTakeFirst();
      return r?.id ?? null;
    },
    async insertMany(rows: NewImage[], d: Kysely<DB> = db): Promise<void> {
      for (let i = 0; i < rows.length; i += 500) await d.insertInto('images').values(rows.slice(i, i + 500)).execute();
    },
    async setStar(modelId: number, ids: number[], starred: boolean): Promise<number> {
      const r = await db.updateTable('images').set({ starred: starred ? 1 : 0 }).where('model_id', '=', modelId).where('id', 'in', ids).executeTakeFirst();
      return Number(r.numUpdatedRows);
    },
    async setSplit(modelId: number, ids: number[], split: Split, d: Kysely<DB> = db): Promise<number> {
      let n = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const r = await d.updateTable('images').set({ split }).where('model_id', '=', modelId).where('id', 'in', ids.slice(i, i + 500)).executeTakeFirst();
        n += Number(r.numUpdatedRows);
      }
      return n;
    },
    /**
     * Deletes rows (annotations cascade) inside the caller's transaction and answers the blob keys they held (per
     * image: original, thumbnail) and
     * how many of them were labeled (so the caller knows whether training data changed).
     */
    async remove(d: Kysely<DB>, modelId: number, ids: number[]): Promise<{ deleted: number; labeled: number; shas: string[][] }> {
      const rows = await d.selectFrom('images').select(['id', 'sha256', 'thumb_sha', 'labeled']).where('model_id', '=', modelId).where('id', 'in', ids).execute();
      if (rows.length === 0) return { deleted: 0, labeled: 0, shas: [] };
      await d.deleteFrom('images').where('id', 'in', rows.map((r) => r.id)).execute();
      return { deleted: rows.length, labeled: rows.filter((r) => r.labeled === 1).length, shas: rows.map((r) => [r.sha256, r.thumb_sha]) };
    },
    /** Sets or clears a classification image's label; labeled follows (annotations also count). */
    async setClass(d: Kysely<DB>, modelId: number, id: number, labelId: number | null): Promise<void> {
      await d
        .updateTable('images')
        .set((eb) => ({
          class_label_id: labelId,
          labeled: labelId !== null ? 1 : eb.case().when('annotation_count', '>', 0).then(1).else(0).end(),
        }))
        .where('model_id', '=', modelId)
        .where('id', '=', id)
        .execute();
    },
    /** Each image's blob keys: [original, thumbnail] (services/gallery/blob-cleanup.ts groups them so). */
    blobsOfModel: async (modelId: number) =>
      (await db.selectFrom('images').select(['sha256', 'thumb_sha']).where('model_id', '=', modelId).execute()).map((r) => [r.sha256, r.thumb_sha]),
  };
}
export type ImagesRepo = ReturnType<typeof imagesRepo>;
