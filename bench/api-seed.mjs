// The data of bench/api.mjs, through the repository layer of the built server (so SQLite and PostgreSQL get the
// same rows): one signed-in user with 20 models, the first holding `images` images, a few in each other one.
// Rows go in through imagesRepo.insertMany (500 rows per INSERT) inside one transaction per model, so that 10,000
// images take a second or two on either database rather than 10,000 round trips.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { repositories, seedUser } from "./bench-server.mjs";

export const MODELS = 20;

/** Seeds the database of `config`; returns the session token, the big model's id and the seed's duration. */
export async function seedApi(config, images) {
  const t0 = performance.now();
  const { openDatabase, modelsRepo, labelsRepo, imagesRepo } = await repositories();
  const database = await openDatabase(config);
  try {
    const db = database.db;
    const now = Date.now();
    const { userId, token } = await seedUser(db, config);
    const models = modelsRepo(db);
    const repo = imagesRepo(db);
    const types = ["DETECTION", "SEGMENTATION", "classification", "DETECTION", "MEASURE"];
    const modelIds = [];
    for (let m = 0; m < MODELS; m++) {
      const name = `line ${m + 1} inspection`;
      const type = types[m % types.length];
      const id = await models.insert({
        owner_id: userId, name, name_key: name, note: m % 3 ? "" : "camera above the belt", code: `bench-${randomBytes(6).toString("hex")}`,
        type, project_status: "no", training_status: "notTrained", test_status: "notTested", train_id: null, created_at: now + m, updated_at: now + m,
      });
      modelIds.push(id);
      const labels = [];
      for (const label of ["scratch", "dent", "crack"]) labels.push(await labelsRepo(db).insert(db, { model_id: id, name: label, name_key: label, color: "#ff0000", created_at: now }));
      const count = m === 0 ? images : 10 + m * 3;
      const rows = [];
      for (let i = 0; i < count; i++) {
        const labeled = i % 5 < 2 ? 1 : 0;
        const file = `cam${i % 4}_${String(i).padStart(5, "0")}.jpg`;
        rows.push({
          model_id: id, name: file, name_key: file, kind: "jpeg", width: 640, height: 480, bytes: 48_000 + i,
          sha256: randomBytes(32).toString("hex"), thumb_sha: randomBytes(32).toString("hex"), split: ["train", "train", "valid", "test", "none"][i % 5],
          starred: i % 10 === 0 ? 1 : 0, annotation_count: labeled && type !== "classification" ? 2 : 0, labeled,
          class_label_id: labeled && type === "classification" ? labels[i % 3] : null, test_state: "untested", test_hits: 0, test_result_count: null, created_at: now + i,
        });
      }
      await db.transaction().execute((trx) => repo.insertMany(rows, trx));
    }
    // What autovacuum does within a minute of a bulk insert in production: statistics for the planner, and the
    // visibility map, without which every count(*) of the lists reads the heap (17 ms instead of 1 ms for the
    // model list's per-model counts, EXPLAIN ANALYZE with 10,000 images).
    if (database.dialect === "postgres") await sql`vacuum analyze`.execute(db);
    return { token, big: modelIds[0], seedMs: performance.now() - t0 };
  } finally {
    await database.close();
  }
}
