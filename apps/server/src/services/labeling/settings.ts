import type { LabelingSettingsBody, LabelingSettingsData } from '@loupe/contracts';
import type { Model } from '../../db/models.js';
import type { Deps } from '../deps.js';

/** Per-model labeling settings (SPEC §5 minimum annotation area). The schema bounds minArea. */
export function labelingSettings(model: Model): LabelingSettingsData {
  return { minArea: Number(model.min_annotation_area) };
}

/** Applies to later saves only: shapes already stored stay, even when now below the minimum. */
export async function updateLabelingSettings(deps: Deps, model: Model, body: LabelingSettingsBody): Promise<LabelingSettingsData> {
  await deps.models.update(model.owner_id, model.id, { min_annotation_area: body.minArea, updated_at: deps.now() });
  return labelingSettings({ ...model, min_annotation_area: body.minArea });
}
