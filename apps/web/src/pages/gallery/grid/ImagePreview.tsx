import { useNavigate } from 'react-router-dom';
import { Button, Modal, Space, Typography } from 'antd';
import { EditOutlined } from '@ant-design/icons';
import type { ImageData, LabelData, ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { labelerPath } from './labelerPath';
import { ShapeOverlay, UNKNOWN_LABEL_COLOR } from './ShapeOverlay';
import type { ClassTag } from './ImageCard';

interface Props {
  image: ImageData | null;
  type: ModelType;
  labels: readonly LabelData[];
  colors: ReadonlyMap<number, string>;
  classes?: readonly ClassTag[];
  onClose: () => void;
}

/** Each label drawn on the image with how many shapes it has, in the order of the label list. */
export function legendOf(image: Pick<ImageData, 'shapes'>, labels: readonly LabelData[]): { id: number; name: string; color: string; count: number }[] {
  const counts = new Map<number, number>();
  for (const s of image.shapes ?? []) counts.set(s.labelId, (counts.get(s.labelId) ?? 0) + 1);
  const known = labels.filter((l) => counts.has(l.id)).map((l) => ({ id: l.id, name: l.name, color: l.color, count: counts.get(l.id)! }));
  const unknown = [...counts].filter(([id]) => !labels.some((l) => l.id === id)).map(([id, count]) => ({ id, name: `#${id}`, color: UNKNOWN_LABEL_COLOR, count }));
  return [...known, ...unknown];
}

/** The image large, with its labels drawn, opened by one click on a thumbnail; a button opens it in the labeler. */
export function ImagePreview({ image, type, labels, colors, classes, onClose }: Props) {
  const { t } = useTranslation('gallery');
  const navigate = useNavigate();
  const legend = image ? legendOf(image, labels) : [];
  return (
    <Modal
      open={image !== null}
      onCancel={onClose}
      width="min(1100px, 92vw)"
      destroyOnHidden
      title={image?.name}
      footer={
        <Space>
          <Button onClick={onClose} data-testid="image-preview-close">
            {t('preview.close')}
          </Button>
          <Button type="primary" icon={<EditOutlined />} onClick={() => image && navigate(labelerPath(type, image.id))} data-testid="image-preview-open">
            {t('preview.open')}
          </Button>
        </Space>
      }
    >
      {image && (
        <div data-testid="image-preview" data-image={image.id}>
          <div className="loupe-image-preview">
            <img src={image.originalUrl} alt={image.name} draggable={false} />
            <ShapeOverlay image={image} colors={colors} stroke={2} testId="image-preview-shapes" />
          </div>
          <Space wrap style={{ marginTop: 8 }} data-testid="image-preview-legend">
            <Typography.Text type="secondary">
              {t('preview.size', { width: image.width, height: image.height })}
            </Typography.Text>
            {legend.map((l) => (
              <span key={l.id} className="loupe-chip loupe-chip-class" style={{ borderColor: l.color }}>
                <span className="loupe-chip-dot" style={{ background: l.color }} />
                {t('preview.legend', { name: l.name, count: l.count })}
              </span>
            ))}
            {classes?.map((c) => (
              <span key={c.id} className="loupe-chip loupe-chip-class" style={{ borderColor: c.color }}>
                <span className="loupe-chip-dot" style={{ background: c.color }} />
                {c.name}
              </span>
            ))}
            {image.shapesTruncated && <Typography.Text type="secondary">{t('preview.truncated', { count: image.annotationCount })}</Typography.Text>}
            {legend.length === 0 && !classes?.length && <Typography.Text type="secondary">{t('preview.noLabels')}</Typography.Text>}
          </Space>
        </div>
      )}
    </Modal>
  );
}
