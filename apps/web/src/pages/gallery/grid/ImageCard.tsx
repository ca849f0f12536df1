import { memo, useEffect, useRef, type KeyboardEvent, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Checkbox, Skeleton } from 'antd';
import { StarFilled, StarOutlined } from '@ant-design/icons';
import type { ImageData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useProject } from '@/stores/project';
import { labelerPath } from './labelerPath';
import { ShapeOverlay } from './ShapeOverlay';

/** A classification image's class: its name and its label's colour. */
export interface ClassTag {
  id: number;
  name: string;
  color: string;
}

/**
 * How long a click waits for a second one before it previews: a double click opens the labeler instead, and must
 * not flash the preview first. Chromium's default double-click interval is 500 ms; most users click faster.
 */
export const PREVIEW_DELAY_MS = 250;

interface Props {
  image: ImageData | undefined;
  /** Classification: the image's class(es). */
  classes?: readonly ClassTag[];
  /** Label colours by id, for the shapes drawn over the thumbnail. */
  colors: ReadonlyMap<number, string>;
  selected: boolean;
  onSelect: (id: number, selected: boolean) => void;
  onStar: (image: ImageData) => void;
  onPreview: (image: ImageData) => void;
}

const onControl = (e: { target: EventTarget }) => (e.target as HTMLElement).closest('button, input, .ant-checkbox-wrapper') !== null;

/** One thumbnail. Memoised: a scroll re-renders only the rows that come into view. */
export const ImageCard = memo(function ImageCard({ image, classes, colors, selected, onSelect, onStar, onPreview }: Props) {
  const { t } = useTranslation('gallery');
  const navigate = useNavigate();
  const type = useProject((s) => s.project?.type);
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(pending.current), []);
  // One click previews the image large with its labels (after the double-click interval); not on the star or the checkbox.
  const preview = (e: MouseEvent) => {
    if (!image || onControl(e)) return;
    clearTimeout(pending.current);
    // The second click of a double click: the double click decides.
    if (e.detail > 1) return;
    pending.current = setTimeout(() => onPreview(image), PREVIEW_DELAY_MS);
  };
  // A double-click opens the image in the model's labeling page.
  const openInLabeling = (e: MouseEvent) => {
    if (!image || onControl(e)) return;
    clearTimeout(pending.current);
    navigate(labelerPath(type, image.id));
  };
  const onKey = (e: KeyboardEvent) => {
    if (!image || e.target !== e.currentTarget) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onPreview(image);
    }
  };
  if (!image) {
    return (
      <div className="loupe-image-card" data-testid="image-card-loading">
        <Skeleton.Image active className="loupe-image-thumb" />
      </div>
    );
  }
  return (
    <div
      className={`loupe-image-card${selected ? ' loupe-image-card-selected' : ''}`}
      data-testid={`image-card-${image.id}`}
      data-name={image.name}
      onClick={preview}
      onDoubleClick={openInLabeling}
    >
      <div className="loupe-image-thumb" role="button" tabIndex={0} aria-label={t('grid.preview', { name: image.name })} onKeyDown={onKey}>
        <img src={image.thumbnailUrl} alt={image.name} loading="lazy" decoding="async" draggable={false} />
        <ShapeOverlay image={image} colors={colors} />
        <Checkbox
          className="loupe-image-select"
          checked={selected}
          onChange={(e) => onSelect(image.id, e.target.checked)}
          aria-label={t('grid.select', { name: image.name })}
          data-testid={`image-select-${image.id}`}
        />
        <button
          type="button"
          className="loupe-image-star"
          onClick={() => onStar(image)}
          aria-pressed={image.starred}
          aria-label={t(image.starred ? 'grid.unstar' : 'grid.star')}
          data-testid={`image-star-${image.id}`}
        >
          {image.starred ? <StarFilled /> : <StarOutlined />}
        </button>
      </div>
      {/* Plain elements below: a scroll mounts a few rows of cards per frame, and measured ellipses or
          themed tags cost more than the thumbnail itself. */}
      <span className="loupe-image-name" title={image.name}>
        {image.name}
      </span>
      <div className="loupe-image-tags">
        <span className={`loupe-chip loupe-chip-${image.split}`}>{t(`splits.${image.split}`)}</span>
        {classes?.length ? (
          classes.map((c) => (
            <span key={c.id} className="loupe-chip loupe-chip-class" style={{ borderColor: c.color }} title={c.name} data-testid="image-class-tag">
              <span className="loupe-chip-dot" style={{ background: c.color }} />
              {c.name}
            </span>
          ))
        ) : (
          <span className={`loupe-chip${image.labeled ? ' loupe-chip-labeled' : ''}`}>{t(image.labeled ? 'grid.labeled' : 'grid.unlabeled')}</span>
        )}
      </div>
    </div>
  );
});
