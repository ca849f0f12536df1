import { Link } from 'react-router-dom';
import { Button, Col, Empty, Modal, Progress, Row, Space, Table, Tag, Typography } from 'antd';
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import type { ClassResult, TestImageData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { BoxOverlay } from './BoxOverlay';
import { classSetsOf, topScores } from './classResult';
import { ClassResultLine } from './ClassResultLine';
import { textOf, UNKNOWN_LABEL_COLOR, type LabelLook, type OverlayStyle } from './overlayGeometry';

interface Props {
  image: TestImageData | null;
  labels: ReadonlyMap<number, LabelLook>;
  type: string | undefined;
  onPrev?: () => void;
  onNext?: () => void;
  onClose: () => void;
  style?: OverlayStyle;
}

/** The classes listed with their probability in the viewer of a classification result. */
export const VIEWER_TOP_CLASSES = 5;

const VIEW_BOX = { w: 960, h: 720, font: 14 } as const;

interface Row {
  key: string;
  kind: 'prediction' | 'groundTruth';
  labelId: number;
  confidence?: number;
  /** OCR: the recognised or true text. */
  text?: string;
  verdict: 'tp' | 'fp' | 'gt' | 'fn' | 'pred';
}

function rowsOf(image: TestImageData): Row[] {
  const judged = image.groundTruth.length > 0 || image.fp > 0;
  return [
    ...image.predictions.map((p, i): Row => ({ key: `p${i}`, kind: 'prediction', labelId: p.labelId, confidence: p.confidence, text: textOf(p.geometry), verdict: p.matched ? 'tp' : judged ? 'fp' : 'pred' })),
    ...image.groundTruth.map((g, i): Row => ({ key: `g${i}`, kind: 'groundTruth', labelId: g.labelId, text: textOf(g.geometry), verdict: g.matched ? 'gt' : 'fn' })),
  ];
}

const VERDICT_COLOR: Record<Row['verdict'], string> = { tp: 'success', fp: 'error', fn: 'error', gt: 'default', pred: 'processing' };

/** A classification's result: the predicted against the true class, and the most probable classes. */
function ClassScores({ imageId, result, labels }: { imageId: number; result: ClassResult; labels: ReadonlyMap<number, LabelLook> }) {
  const { t } = useTranslation('testing');
  const top = topScores(result, labels, VIEWER_TOP_CLASSES);
  const own = classSetsOf(result)?.truth ?? (result.truthLabelId === null ? [] : [result.truthLabelId]);
  return (
    <Space orientation="vertical" style={{ width: '100%' }}>
      <ClassResultLine imageId={imageId} result={result} labels={labels} />
      <Typography.Text strong>{t('classes.scores', { count: top.length })}</Typography.Text>
      <div data-testid="test-viewer-scores" data-count={Object.keys(result.scores).length}>
        {top.map((s) => (
          <div key={s.labelId} className="loupe-test-score" data-testid="test-viewer-score" data-label-id={s.labelId} data-score={s.score}>
            <Tag color={s.color}>{s.name}</Tag>
            {own.includes(s.labelId) && <Typography.Text type="secondary">{t('classes.ownClass')}</Typography.Text>}
            <Progress percent={Number((s.score * 100).toFixed(1))} size="small" strokeColor={s.color} format={(p) => `${(p ?? 0).toFixed(1)} %`} />
          </div>
        ))}
      </div>
    </Space>
  );
}

/** One image's result at full size with every box (or class probability) listed; labeling converts test boxes of test-split images. */
export function ResultViewer({ image, labels, type, onPrev, onNext, onClose, style }: Props) {
  const { t } = useTranslation('testing');
  return (
    <Modal open={image !== null} onCancel={onClose} footer={null} width={1200} title={image?.name} destroyOnHidden data-testid="test-viewer">
      {image && (
        <Row gutter={16}>
          <Col xs={24} lg={16}>
            <BoxOverlay image={image} labels={labels} boxW={VIEW_BOX.w} boxH={VIEW_BOX.h} fontSize={VIEW_BOX.font} full tagGroundTruth style={style} />
            <Space style={{ marginTop: 8 }}>
              <Button icon={<LeftOutlined />} disabled={!onPrev} onClick={onPrev} data-testid="test-viewer-prev" aria-label={t('viewer.prev')} />
              <Button icon={<RightOutlined />} disabled={!onNext} onClick={onNext} data-testid="test-viewer-next" aria-label={t('viewer.next')} />
              <Link to={`${stepPath('mark', type)}?imageId=${image.imageId}`} data-testid="test-viewer-mark">
                {t('viewer.openInLabeling')}
              </Link>
            </Space>
            <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
              {t('viewer.legend')}
            </Typography.Paragraph>
          </Col>
          <Col xs={24} lg={8}>
            {image.classification ? (
              <ClassScores imageId={image.imageId} result={image.classification} labels={labels} />
            ) : image.predictions.length + image.groundTruth.length === 0 ? (
              <Empty description={t('viewer.nothing')} />
            ) : (
              <Table<Row>
                size="small"
                pagination={false}
                dataSource={rowsOf(image)}
                data-testid="test-viewer-boxes"
                columns={[
                  {
                    title: t('viewer.label'),
                    dataIndex: 'labelId',
                    render: (id: number) => {
                      const look = labels.get(id);
                      return <Tag color={look?.color ?? UNKNOWN_LABEL_COLOR}>{look?.name ?? `#${id}`}</Tag>;
                    },
                  },
                  { title: t('viewer.kind'), dataIndex: 'kind', render: (k: Row['kind']) => t(`viewer.${k}`) },
                  { title: t('viewer.confidence'), dataIndex: 'confidence', render: (c?: number) => (c === undefined ? '' : c.toFixed(2)) },
                  ...(style === 'text' ? [{ title: t('viewer.text'), dataIndex: 'text', render: (text?: string) => <span data-testid="test-viewer-text">{text ?? ''}</span> }] : []),
                  { title: t('viewer.verdict'), dataIndex: 'verdict', render: (v: Row['verdict']) => <Tag color={VERDICT_COLOR[v]}>{t(`viewer.verdicts.${v}`)}</Tag> },
                ]}
              />
            )}
          </Col>
        </Row>
      )}
    </Modal>
  );
}
