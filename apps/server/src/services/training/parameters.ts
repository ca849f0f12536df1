import { checkTrainingParams, type Language, type SavedParamsData, type SaveParamsBody } from '@loupe/contracts';
import { AppError, fail } from '../../errors.js';
import { errorMessage, fieldName, reasonText } from '../../i18n.js';
import type { Model } from '../../db/models.js';
import type { User } from '../../db/users.js';
import { assertParamCeilings } from '../../runner/fair-use.js';
import type { Deps } from '../deps.js';
import { resolvePretrained } from './pretrained.js';

type Params = Record<string, unknown>;

/**
 * The engine's rules for training parameters (contracts' checkTrainingParams): a validation error whose
 * data.problems holds one message per problem in the caller's language; the envelope's message is the first.
 */
export function assertTrainingParams(params: Params, lang: Language): void {
  const problems = checkTrainingParams(params);
  if (problems.length === 0) return;
  const messages = problems.map((p) => ({ ...p, message: errorMessage(lang, 'validation', { field: fieldName(lang, p.field), reason: reasonText(lang, p.reason) }) }));
  throw new AppError('validation', { field: problems[0]!.field, reason: problems[0]!.reason }, { problems: messages });
}

/** Stored parameters as they read now: `agent_early_stop` saved as a switch before issue 35 reads 5 (on) or 0 (off). */
function parseSaved(text: string): SavedParamsData['saved'] {
  const saved = JSON.parse(text) as Record<string, unknown>;
  if (typeof saved.agent_early_stop === 'boolean') saved.agent_early_stop = saved.agent_early_stop ? 5 : 0;
  return saved as SavedParamsData['saved'];
}

/** The /parameter values saved for the model: only the keys the user set. */
export function savedParams(model: Model): SavedParamsData['saved'] {
  return parseSaved(model.parameters);
}

function view(model: Pick<Model, 'parameters' | 'parameters_updated_at'>): SavedParamsData {
  const at = model.parameters_updated_at;
  return { saved: parseSaved(model.parameters), updatedAt: at === null ? null : new Date(Number(at)).toISOString() };
}

export function getSavedParams(model: Model): SavedParamsData {
  return view(model);
}

/** Saves exactly the given keys (checked like a training start); a training started without params uses them. */
export async function saveParams(deps: Deps, user: User, model: Model, body: SaveParamsBody, lang: Language): Promise<SavedParamsData> {
  assertTrainingParams(body.params, lang);
  // The host's and the plan's ceilings too: a saved value that no start would accept is refused where it is typed.
  assertParamCeilings(deps.config.fairUse, body.params, user.training_priority);
  // A saved `pretrained` must name one of the owner's versions with weights now; a start checks it again.
  await resolvePretrained(deps, model.owner_id, body.params.pretrained);
  const patch = { parameters: JSON.stringify(body.params), parameters_updated_at: deps.now() };
  try {
    await deps.models.update(model.owner_id, model.id, patch);
  } catch (e) {
    deps.log.error(e, `saving parameters of model ${model.id} failed`);
    fail('parameterSaveFailed');
  }
  return view(patch);
}

/** Back to the defaults: nothing saved. */
export async function resetParams(deps: Deps, model: Model): Promise<SavedParamsData> {
  const patch = { parameters: '{}', parameters_updated_at: null };
  try {
    await deps.models.update(model.owner_id, model.id, patch);
  } catch (e) {
    deps.log.error(e, `resetting parameters of model ${model.id} failed`);
    fail('parameterResetFailed');
  }
  return view(patch);
}
