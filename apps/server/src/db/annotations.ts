import type { Kysely } from 'kysely';
import type { Geometry } from '@loupe/contracts';
import type { DB } from './schema.js';

export interface NewAnnotation {
  labelId: number;
  geometry: Geometry;
}

export function annotationsRepo(db: Kysely<DB>) {
  return {
    /** Current annotations of the given images (their annotation_version). */
    async current(imageIds: number[]) {
      const out: { image_id: number; id: number; label_id: number; geometry: string }[] = [];
      for (let i = 0; i < imageIds.length; i += 500) {
        const rows = await db
          .selectFrom('annotations')
          .innerJoin('images', 'images.id', 'annotations.image_id')
          .whereRef('annotations.version', '=', 'images.annotation_version')
          .where('annotations.image_id', 'in', imageIds.slice(i, i + 500))
          .select(['annotations.image_id', 'annotations.id', 'annotations.label_id', 'annotations.geometry'])
          .orderBy('annotations.id')
          .execute();
        out.push(...rows);
      }
      return out;
    },
    /**
     * Moves the image from `base` to the next annotation version, or answers false when another save moved it
     * first. The row lock this update takes makes a concurrent save wait and then find the version changed.
     */
    async claimVersion(d: Kysely<DB>, imageId: number, base: number): Promise<boolean> {
      const r = await d
        .updateTable('images')
        .set({ annotation_version: base + 1 })
        .where('id', '=', imageId)
        .where('annotation_version', '=', base)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1;
    },
    /**
     * Replaces an image's annotation set by a new version (older rows stay as history) and updates the
     * counters the gallery filters read.
     */
    async replace(d: Kysely<DB>, image: { id: number; model_id: number; annotation_version: number; class_label_id: number | null }, items: NewAnnotation[], now: number) {
      const version = image.annotation_version + 1;
      await d.updateTable('annotations').set({ current: 0 }).where('image_id', '=', image.id).where('current', '=', 1).execute();
      const rows = items.map((a) => ({ image_id: image.id, model_id: image.model_id, label_id: a.labelId, version, geometry: JSON.stringify(a.geometry), created_at: now }));
      // Chunked: one statement for a full image (20,000 shapes × 6 values) passes both databases' parameter limits.
      for (let i = 0; i < rows.length; i += 1000) await d.insertInto('annotations').values(rows.slice(i, i + 1000)).execute();
      await d
        .updateTable('images')
        .set({ annotation_version: version, annotation_count: items.length, labeled: items.length > 0 || image.class_label_id !== null ? 1 : 0 })
        .where('id', '=', image.id)
        .execute();
    },
  };
}
export type AnnotationsRepo = ReturnType<typeof annotationsRepo>;
