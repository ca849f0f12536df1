import { memo } from 'react';
import type { TestImageData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { BoxOverlay } from './BoxOverlay';
import { classVerdict } from './classResult';
import { ClassResultLine } from './ClassResultLine';
import type { LabelLook, OverlayStyle } from './overlayGeometry';

/** Thumbnail frame in overlay units: 4:3 like the gallery's cards; tags at 11 units read at card size. */
export const CARD_BOX = { w: 240, h: 180, font: 11 } as const;

interface Props {
  image: TestImageData;
  labels: ReadonlyMap<number, LabelLook>;
  onOpen: (image: TestImageData) => void;
  style?: OverlayStyle;
}

/**
 * One tested image: the overlay and its counts, or for a classification its class against the true one; the
 * counts also ride as data attributes for browser tests.
 */
export const ResultCard = memo(function ResultCard({ image, labels, onOpen, style }: Props) {
  const { t } = useTranslation('testing');
  const c = image.classification;
  const verdict = c ? classVerdict(c) : null;
  return (
    <div
      className={`loupe-test-card${verdict === 'wrong' ? ' loupe-test-card-wrong' : ''}`}
      role="button"
      tabIndex={0}
      onClick={() => onOpen(image)}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && onOpen(image)}
      data-testid={`test-result-${image.imageId}`}
      data-name={image.name}
      data-predictions={image.predictions.length}
      data-ground-truth={image.groundTruth.length}
      data-tp={image.tp}
      data-fp={image.fp}
      data-fn={image.fn}
      data-verdict={verdict ?? undefined}
    >
      <BoxOverlay image={image} labels={labels} boxW={CARD_BOX.w} boxH={CARD_BOX.h} fontSize={CARD_BOX.font} style={style} />
      <span className="loupe-test-name" title={image.name}>
        {image.name}
      </span>
      {c ? (
        <ClassResultLine imageId={image.imageId} result={c} labels={labels} />
      ) : (
        <div className="loupe-test-chips">
        <span className={`loupe-chip${image.predictions.length > 0 ? ' loupe-chip-found' : ''}`}>{t('results.found', { count: image.predictions.length })}</span>
        {image.fp > 0 && <span className="loupe-chip loupe-chip-error">{t('results.fp', { count: image.fp })}</span>}
        {image.fn > 0 && <span className="loupe-chip loupe-chip-error">{t('results.fn', { count: image.fn })}</span>}
        </div>
      )}
    </div>
  );
});
