import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { ModelListQuery } from '@loupe/contracts';
import type { DB, ModelsTable } from './schema.js';
import { likeContains } from './like.js';

export type Model = Selectable<ModelsTable>;
/** What the model list and model view show; not the saved parameters (a JSON text), name key or settings. */
const VIEW_COLUMNS = [
  'models.id',
  'models.train_id',
  'models.name',
  'models.note',
  'models.code',
  'models.type',
  'models.project_status',
  'models.training_status',
  'models.test_status',
  'models.created_at',
  'models.training_count',
  'models.data_version',
  'models.multi_label',
] as const;
type ViewColumn = (typeof VIEW_COLUMNS)[number] extends `models.${infer C extends keyof Model}` ? C : never;
export type ModelRow = Pick<Model, ViewColumn> & { total_images: number; labeled_images: number; label_count: number };

/** Models of one owner; every read and write takes the owner id. */
export function modelsRepo(db: Kysely<DB>) {
  const withCounts = (d: Kysely<DB>) =>
    d
      .selectFrom('models')
      .select(VIEW_COLUMNS)
      .select((eb) => [
        eb.selectFrom('images').whereRef('images.model_id', '=', 'models.id').select(eb.fn.countAll<number>().as('n')).as('total_images'),
        eb
          .selectFrom('images')
          .whereRef('images.model_id', '=', 'models.id')
          .where('images.labeled', '=', 1)
          .select(eb.fn.countAll<number>().as('n'))
          .as('labeled_images'),
        eb.selectFrom('labels').whereRef('labels.model_id', '=', 'models.id').select(eb.fn.countAll<number>().as('n')).as('label_count'),
      ]);
  return {
    async insert(row: Insertable<ModelsTable>): Promise<number> {
      return (await db.insertInto('models').values(row).returning('id').executeTakeFirstOrThrow()).id;
    },
    find: (ownerId: number, id: number) =>
      db.selectFrom('models').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst(),
    async findWithCounts(ownerId: number, id: number): Promise<ModelRow | undefined> {
      const row = await withCounts(db).where('models.id', '=', id).where('models.owner_id', '=', ownerId).executeTakeFirst();
      return row as ModelRow | undefined;
    },
    nameTaken: async (ownerId: number, nameKey: string, exceptId?: number) => {
      let q = db.selectFrom('models').select('id').where('owner_id', '=', ownerId).where('name_key', '=', nameKey);
      if (exceptId) q = q.where('id', '!=', exceptId);
      return (await q.executeTakeFirst()) !== undefined;
    },
    async update(ownerId: number, id: number, patch: Updateable<ModelsTable>): Promise<void> {
      await db.updateTable('models').set(patch).where('id', '=', id).where('owner_id', '=', ownerId).execute();
    },
    /** One more change to the model's training data; runs inside the transaction that made the change. */
    async bumpDataVersion(d: Kysely<DB>, id: number): Promise<void> {
      await d.updateTable('models').set((eb) => ({ data_version: eb('data_version', '+', 1) })).where('id', '=', id).execute();
    },
    async remove(ownerId: number, id: number): Promise<void> {
      await db.deleteFrom('models').where('id', '=', id).where('owner_id', '=', ownerId).execute();
    },
    async list(ownerId: number, q: ModelListQuery & { page: number; pageSize: number }) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one filter for the count and the page query
      const filter = <Q extends { where: (...a: any[]) => Q }>(query: Q): Q => {
        let f = query.where('models.owner_id', '=', ownerId);
        if (q.type) f = f.where('models.type', '=', q.type);
        if (q.trainingStatus) f = f.where('models.training_status', '=', q.trainingStatus);
        if (q.name) f = f.where(sql<boolean>`models.name_key like ${likeContains(q.name.toLowerCase())} escape '\\'`);
        return f;
      };
      const counted = await filter(db.selectFrom('models').select((eb) => eb.fn.countAll<number>().as('n'))).executeTakeFirstOrThrow();
      const dir = q.order ?? (q.sort === 'name' ? 'asc' : 'desc');
      const rows = filter(withCounts(db));
      const sorted =
        q.sort === 'name'
          ? rows.orderBy('models.name_key', dir)
          : q.sort === 'images'
            ? rows.orderBy(sql`total_images`, dir)
            : rows.orderBy('models.created_at', dir);
      const items = (await sorted
        .orderBy('models.id', dir)
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize)
        .execute()) as ModelRow[];
      return { total: Number(counted.n), items };
    },
  };
}
export type ModelsRepo = ReturnType<typeof modelsRepo>;
