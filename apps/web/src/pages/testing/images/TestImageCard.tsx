import { memo } from 'react';
import { useNavigate } from 'react-router-dom';
import { Checkbox } from 'antd';
import type { ImageData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { testStateOf } from './testImagesApi';

interface Props {
  image: ImageData;
  type: string | undefined;
  selected: boolean;
  onSelect: (id: number, selected: boolean) => void;
}

/** A test-split image and whether it was tested; a double-click opens it on /mark with its dashed results. */
export const TestImageCard = memo(function TestImageCard({ image, type, selected, onSelect }: Props) {
  const { t } = useTranslation('testing');
  const navigate = useNavigate();
  const state = testStateOf(image);
  return (
    <div
      className={`loupe-test-card${selected ? ' loupe-test-card-selected' : ''}`}
      data-testid={`test-image-${image.id}`}
      data-name={image.name}
      data-test-state={state}
      data-results={image.testResultCount ?? ''}
      onDoubleClick={(e) => {
        if ((e.target as HTMLElement).closest('input, .ant-checkbox-wrapper')) return;
        navigate(`${stepPath('mark', type)}?imageId=${image.id}`);
      }}
    >
      <div className="loupe-test-frame" style={{ aspectRatio: '4 / 3' }}>
        <img src={image.thumbnailUrl} alt={image.name} loading="lazy" decoding="async" draggable={false} />
        <Checkbox
          className="loupe-test-select"
          checked={selected}
          onChange={(e) => onSelect(image.id, e.target.checked)}
          aria-label={t('images.select', { name: image.name })}
          data-testid={`test-image-select-${image.id}`}
        />
      </div>
      <span className="loupe-test-name" title={image.name}>
        {image.name}
      </span>
      <div className="loupe-test-chips">
        <span className={`loupe-chip loupe-chip-${state}`}>{t(`images.states.${state}`, { count: image.testResultCount ?? 0 })}</span>
        <span className={`loupe-chip${image.labeled ? ' loupe-chip-found' : ''}`}>{t(image.labeled ? 'images.labeled' : 'images.unlabeled')}</span>
      </div>
    </div>
  );
});
