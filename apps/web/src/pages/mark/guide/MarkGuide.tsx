import { useState } from 'react';
import { Tour, type TourStepProps } from 'antd';
import { CloseOutlined } from '@ant-design/icons';
import type { TFunction } from 'i18next';
import { useTranslation } from '@/i18n';
import { useGuideSeen, useGuides } from '../markApi';
import { guideOf, type MarkKind } from '../modes';

/** Steps point at the page's parts by test id, so the guide needs no refs threaded through the layout. */
const at = (testId: string) => () => document.querySelector<HTMLElement>(`[data-testid="${testId}"]`)!;

const ANNOTATE_STEPS = [
  ['draw', 'mark-tools'],
  ['labels', 'mark-labels'],
  ['view', 'mark-canvas'],
  ['history', 'mark-history'],
  ['save', 'mark-save-status'],
] as const;

const CLASSIFY_STEPS = [
  ['assign', 'mark-classes'],
  ['clear', 'mark-current-class'],
  ['navigate', 'mark-nav'],
  ['save', 'mark-save-status'],
] as const;

function stepsOf(kind: MarkKind, t: TFunction<'mark'>): TourStepProps[] {
  const steps = kind === 'classification' ? CLASSIFY_STEPS : ANNOTATE_STEPS;
  return steps.map(([id, testId]) => ({
    // The drawing step is the one that differs per model type; the rest are shared.
    title: <span data-testid="mark-guide" data-step={id}>{t(`guide.${id}.title`)}</span>,
    description: t(id === 'draw' ? `guide.draw.${kind}` : `guide.${id}.body`),
    target: at(testId),
  }));
}

/**
 * The first-use guide of a labeling page kind: opens by itself until this user has closed it once (the server
 * remembers per user), and again from the help button.
 */
export function useGuide(kind: MarkKind) {
  const guide = guideOf(kind);
  const guides = useGuides();
  const seen = useGuideSeen();
  const [manual, setManual] = useState<boolean | null>(null);
  const unseen = guides.data ? !guides.data.seen.includes(guide) : false;
  const open = manual ?? unseen;
  return {
    open,
    show: () => setManual(true),
    close: () => {
      setManual(false);
      if (unseen && !seen.isPending) seen.mutate(guide);
    },
  };
}

export function MarkGuide({ kind, open, onClose }: { kind: MarkKind; open: boolean; onClose: () => void }) {
  const { t } = useTranslation('mark');
  const [current, setCurrent] = useState(0);
  if (!open) return null;
  return (
    <Tour
      open
      current={current}
      onChange={setCurrent}
      onClose={() => {
        setCurrent(0);
        onClose();
      }}
      steps={stepsOf(kind, t)}
      // The close button passes on only aria attributes: the test id rides on its icon.
      closable={{ closeIcon: <CloseOutlined data-testid="mark-guide-close" />, 'aria-label': t('guide.close') }}
    />
  );
}
