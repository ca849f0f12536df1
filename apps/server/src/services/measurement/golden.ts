import fs from 'node:fs';
import path from 'node:path';
import { proposeTolerances, type GoldenBody, type GoldenData, type ObjectMeasure } from '@loupe/contracts';
import { fail } from '../../errors.js';
import type { Model } from '../../db/models.js';
import { engineEnv, runEngine } from '../../runner/engine.js';
import type { Deps } from '../deps.js';
import { cocoManifest } from '../training/snapshot.js';
import { assertMeasureModel, measurementSettings } from './settings.js';

/** One image of the engine's measurements.json (engine/README.md "Measurement"). */
interface MeasuredByEngine {
  image_id: number;
  objects: { category_id: number; measure: ObjectMeasure }[];
}

/**
 * Golden samples: the engine's `measure` without a model measures the current labels (polygons, rotated boxes,
 * boxes) of the chosen labeled images, by the same definitions it measures predictions with, in mm when the
 * model is calibrated. From them each label gets proposed ranges (contracts' proposeTolerances). Nothing is
 * saved: the user reviews the proposal and saves it as the tolerances.
 */
export async function goldenProposal(deps: Deps, model: Model, body: GoldenBody): Promise<GoldenData> {
  assertMeasureModel(model);
  const chosen = [...new Set(body.imageIds)];
  const images = [];
  for (let i = 0; i < chosen.length; i += 500) images.push(...(await deps.images.byIds(model.id, chosen.slice(i, i + 500))));
  const labeled = images.filter((i) => i.labeled === 1);
  if (labeled.length === 0) fail('noLabeledImages');
  const labels = await deps.labels.list(model.id);
  const categories = labels.map((l, i) => ({ id: i + 1, name: l.name, labelId: l.id }));
  const annotations = await deps.annotations.current(labeled.map((i) => i.id));
  const { manifest } = cocoManifest(labeled, annotations, categories);
  const { mmPerPx } = await measurementSettings(deps, model.id);

  const dir = await fs.promises.mkdtemp(path.join(deps.config.dataDir, 'golden-'));
  try {
    await fs.promises.writeFile(path.join(dir, 'golden.json'), JSON.stringify(manifest));
    const args = ['measure', '--data', 'golden.json', '--out', 'measurements.json', ...(mmPerPx !== null ? ['--mm-per-px', String(mmPerPx)] : [])];
    let error: string | null = null;
    const engine = runEngine(deps.config.engine.command, args, {
      cwd: dir,
      env: engineEnv(deps.config.engine.pythonPath),
      onEvent: async (e) => {
        if (e.event === 'error') error = e.message;
      },
    });
    const code = await engine.exited;
    if (code !== 0) throw new Error(`measuring golden samples failed: ${error ?? engine.tail()}`);
    const measured = JSON.parse(await fs.promises.readFile(path.join(dir, 'measurements.json'), 'utf8')) as { images: MeasuredByEngine[] };
    const labelOf = new Map(categories.map((c) => [c.id, c.labelId]));
    const samples = measured.images.map((img) => ({
      objects: img.objects.flatMap((o) => {
        const labelId = labelOf.get(o.category_id);
        return labelId === undefined ? [] : [{ labelId, values: o.measure }];
      }),
    }));
    const unit = mmPerPx !== null ? 'mm' : 'px';
    const { stats, proposal } = proposeTolerances(samples, labels.map((l) => l.id), body.marginPct, unit);
    return { images: samples.length, objects: samples.reduce((n, s) => n + s.objects.length, 0), unit, stats, proposal };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
