import { errorByCode, Limits, type ErrorReaction } from '@loupe/contracts';
import i18n from '@/i18n';
import { getProject } from '@/stores/project';
import { stepPath } from '@/routes/steps';
import type { ApiError } from './errors';
import { feedback, useRelogin } from './feedback';

let lastRelogin = Number.NEGATIVE_INFINITY;

/** The relogin dialog opens at most once per throttle window (SPEC §9: 10 s), however many calls fail. */
export function claimReloginSlot(now: number): boolean {
  if (now - lastRelogin < Limits.reloginDialogThrottleMs) return false;
  lastRelogin = now;
  return true;
}

/** Tests start each case with a fresh window. */
export function resetReloginThrottle(): void {
  lastRelogin = Number.NEGATIVE_INFINITY;
}

export function reactionOf(code: number): ErrorReaction | 'passThrough' | 'reject' {
  if (code === 500) return 'passThrough';
  const reaction = errorByCode(code)?.reaction;
  // 'message' rows and unknown codes go back to the caller, which shows the message where it fits.
  return reaction === undefined || reaction === 'message' ? 'reject' : reaction;
}

function projectStep(step: 'train' | 'mark'): string {
  return stepPath(step, getProject()?.type);
}

const ACTIONS: Partial<Record<ErrorReaction, () => { actionLabel: string; to: string }>> = {
  toTrain: () => ({ actionLabel: 'actions.goTrain', to: projectStep('train') }),
  toMark: () => ({ actionLabel: 'actions.goMark', to: projectStep('mark') }),
  toPosition: () => ({ actionLabel: 'actions.goUpload', to: '/position' }),
  toGallery: () => ({ actionLabel: 'actions.goGallery', to: '/gallery' }),
};

function messageFor(error: ApiError): string {
  if (error.message) return error.message;
  const key = errorByCode(error.code)?.key;
  return key ? i18n.t(`errors:${key}`) : i18n.t('common:errors.unknown');
}

/**
 * Apply the SPEC §8 reaction for a failed call. Returns the error, marked handled when the user has
 * already been told; the caller always receives a rejection (except nothing: every failure rejects).
 */
export function react(error: ApiError, now = Date.now()): ApiError {
  const reaction = reactionOf(error.code);
  switch (reaction) {
    case 'relogin':
      if (claimReloginSlot(now)) useRelogin.getState().show(messageFor(error));
      error.handled = true;
      break;
    case 'silent':
      error.handled = true;
      break;
    case 'contactSales':
      feedback().notice({ message: messageFor(error) });
      error.handled = true;
      break;
    case 'toTrain':
    case 'toMark':
    case 'toPosition':
    case 'toGallery': {
      const action = ACTIONS[reaction]!();
      feedback().notice({ message: messageFor(error), ...action });
      error.handled = true;
      break;
    }
    default:
      break;
  }
  return error;
}
