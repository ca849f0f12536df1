import { CheckCircleFilled, CloseCircleFilled } from '@ant-design/icons';
import type { ClassResult } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ERROR_COLOR } from './BoxOverlay';
import { classVerdict, lookOf } from './classResult';
import type { LabelLook } from './overlayGeometry';

const RIGHT_COLOR = '#52c41a';

/** "✓ disc 0.93 · true: disc": the predicted class and its probability against the image's own class. */
export function ClassResultLine({ imageId, result, labels }: { imageId: number; result: ClassResult; labels: ReadonlyMap<number, LabelLook> }) {
  const { t } = useTranslation('testing');
  const verdict = classVerdict(result);
  const predicted = lookOf(labels, result.labelId);
  const truth = result.truthLabelId === null ? null : lookOf(labels, result.truthLabelId);
  return (
    <div
      className={`loupe-test-class loupe-test-class-${verdict}`}
      data-testid={`test-class-${imageId}`}
      data-predicted={result.labelId}
      data-truth={result.truthLabelId ?? ''}
      data-verdict={verdict}
      data-confidence={result.confidence}
    >
      {verdict === 'right' && <CheckCircleFilled style={{ color: RIGHT_COLOR }} aria-label={t('classes.right')} />}
      {verdict === 'wrong' && <CloseCircleFilled style={{ color: ERROR_COLOR }} aria-label={t('classes.wrong')} />}
      <span className="loupe-test-class-swatch" style={{ background: predicted.color }} />
      <span className="loupe-test-class-name" title={predicted.name}>
        {predicted.name}
      </span>
      <span className="loupe-test-class-score">{result.confidence.toFixed(2)}</span>
      <span className="loupe-test-class-truth" title={truth?.name}>
        {truth ? t('classes.truth', { name: truth.name }) : t('classes.noTruth')}
      </span>
    </div>
  );
}
