import { memo, type MouseEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import { Checkbox, Skeleton } from 'antd';
import { StarFilled, StarOutlined } from '@ant-design/icons';
import type { ImageData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { useProject } from '@/stores/project';

interface Props {
  image: ImageData | undefined;
  /** Classification: the name of the image's class. */
  className?: string;
  selected: boolean;
  onSelect: (id: number, selected: boolean) => void;
  onStar: (image: ImageData) => void;
}

/** One thumbnail. Memoised: a scroll re-renders only the rows that come into view. */
export const ImageCard = memo(function ImageCard({ image, className, selected, onSelect, onStar }: Props) {
  const { t } = useTranslation('gallery');
  const navigate = useNavigate();
  const type = useProject((s) => s.project?.type);
  // A double-click opens the image in the model's labeling page; not when it lands on the star or the checkbox.
  const openInLabeling = (e: MouseEvent) => {
    if (!image || (e.target as HTMLElement).closest('button, input, .ant-checkbox-wrapper')) return;
    navigate(`${stepPath('mark', type)}?imageId=${image.id}`);
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
      onDoubleClick={openInLabeling}
    >
      <div className="loupe-image-thumb">
        <img src={image.thumbnailUrl} alt={image.name} loading="lazy" decoding="async" draggable={false} />
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
        <span className={`loupe-chip${image.labeled ? ' loupe-chip-labeled' : ''}`}>
          {className ?? t(image.labeled ? 'grid.labeled' : 'grid.unlabeled')}
        </span>
      </div>
    </div>
  );
});
