import { CheckCircleFilled, CloseCircleFilled } from '@ant-design/icons';
import type { ClassResult } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ERROR_COLOR } from './BoxOverlay';
import { classSetsOf, classVerdict, lookOf } from './classResult';
import type { LabelLook } from './overlayGeometry';

const RIGHT_COLOR = '#52c41a';

/**
 * "✓ disc 0.93 · true: disc": the predicted class and its probability against the image's own class; for a
 * multi-label run the predicted set against the true set ("none" for an empty one).
 */
export function ClassResultLine({ imageId, result, labels }: { imageId: number; result: ClassResult; labels: ReadonlyMap<number, LabelLook> }) {
  const { t } = useTranslation('testing');
  const verdict = classVerdict(result);
  const sets = classSetsOf(result);
  const names = (ids: number[]) => (ids.length === 0 ? t('classes.none') : ids.map((id) => lookOf(labels, id).name).join(', '));
  const predicted = sets ? { name: names(sets.predicted), color: lookOf(labels, sets.predicted[0] ?? result.labelId).color } : lookOf(labels, result.labelId);
  const truthName = sets ? (sets.truth === null ? null : names(sets.truth)) : result.truthLabelId === null ? null : lookOf(labels, result.truthLabelId).name;
  return (
    <div
      className={`loupe-test-class loupe-test-class-${verdict}`}
      data-testid={`test-class-${imageId}`}
      data-predicted={sets ? sets.predicted.join(',') : result.labelId}
      data-truth={sets ? (sets.truth?.join(',') ?? '') : (result.truthLabelId ?? '')}
      data-verdict={verdict}
      data-confidence={result.confidence}
    >
      {verdict === 'right' && <CheckCircleFilled style={{ color: RIGHT_COLOR }} aria-label={t('classes.right')} />}
      {verdict === 'wrong' && <CloseCircleFilled style={{ color: ERROR_COLOR }} aria-label={t('classes.wrong')} />}
      <span className="loupe-test-class-swatch" style={{ background: predicted.color }} />
      <span className="loupe-test-class-name" title={predicted.name}>
        {predicted.name}
      </span>
      {!sets && <span className="loupe-test-class-score">{result.confidence.toFixed(2)}</span>}
      <span className="loupe-test-class-truth" title={truthName ?? undefined}>
        {truthName !== null ? t('classes.truth', { name: truthName }) : t('classes.noTruth')}
      </span>
    </div>
  );
}
