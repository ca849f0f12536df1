import { useCallback, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Alert, Button, Card, Col, Row, Space, Typography } from 'antd';
import { BarChartOutlined, CloudUploadOutlined, DeleteOutlined, PartitionOutlined } from '@ant-design/icons';
import type { ImageData, ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useNotify } from '@/pages/auth/shared/useNotify';
import { useModel } from '@/pages/models/modelsApi';
import { statisticsPath } from '@/pages/statistics/paths';
import { MODEL_LIST_PATH } from '@/routes/table';
import { useProject } from '@/stores/project';
import { FilterBar } from './FilterBar';
import { useDeleteImages, useImageTotal, useLabels, useStar } from './galleryApi';
import { classTagsOf, ImageGrid } from './grid/ImageGrid';
import { ImagePreview } from './grid/ImagePreview';
import { LabelPanel } from './labels/LabelPanel';
import { DEFAULT_FILTERS, type GalleryFilters } from './query';
import { AutoSplitDialog } from './split/AutoSplitDialog';
import { SplitActions } from './split/SplitActions';
import { UploadWizard } from './upload/UploadWizard';
import './gallery.css';

/** /gallery: the open model's dataset (SPEC §2): upload, filter, star, split, delete, labels. */
export default function GalleryPage() {
  const { t } = useTranslation('gallery');
  const project = useProject((s) => s.project);
  if (!project) {
    return (
      <Alert
        type="info"
        showIcon
        title={t('noProject')}
        action={<Link to={MODEL_LIST_PATH}>{t('toModels')}</Link>}
        data-testid="gallery-no-project"
      />
    );
  }
  // Keyed by model: filters and selection of one model never leak into another.
  return <Gallery key={project.id} modelId={project.id} type={project.type} />;
}

function Gallery({ modelId, type }: { modelId: string; type: ModelType }) {
  const { t } = useTranslation(['gallery', 'statistics']);
  const { modal, message } = useNotify();
  const navigate = useNavigate();
  const [filters, setFilters] = useState<GalleryFilters>(DEFAULT_FILTERS);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const [uploading, setUploading] = useState(false);
  const [splitting, setSplitting] = useState(false);
  const [preview, setPreview] = useState<ImageData | null>(null);
  const model = useModel(modelId);
  const first = useImageTotal(modelId, filters);
  const labels = useLabels(modelId);
  const star = useStar(modelId);
  const remove = useDeleteImages(modelId);
  const total = first.data?.total ?? 0;
  const labelNames = useMemo(() => new Map((labels.data ?? []).map((l) => [l.id, l.name])), [labels.data]);
  const labelColors = useMemo(() => new Map((labels.data ?? []).map((l) => [l.id, l.color])), [labels.data]);

  const changeFilters = (next: GalleryFilters) => {
    setFilters(next);
    setSelected(new Set());
  };
  const onSelect = useCallback((id: number, on: boolean) => {
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const { mutate: starMutate } = star;
  const onStar = useCallback((image: ImageData) => starMutate({ ids: [image.id], starred: !image.starred }), [starMutate]);
  const clear = () => setSelected(new Set());

  const bulkDelete = () =>
    modal.confirm({
      title: t('bulk.deleteTitle', { count: selected.size }),
      content: t('bulk.deleteBody'),
      okText: t('bulk.delete'),
      cancelText: t('bulk.cancel'),
      okButtonProps: { danger: true, 'data-testid': 'bulk-delete-confirm' },
      onOk: () =>
        remove
          .mutateAsync([...selected])
          .then((r) => {
            void message.success(t('bulk.deleted', { count: r.changed }));
            clear();
          })
          .catch(() => undefined),
    });

  return (
    <div data-testid="gallery">
      <Space align="baseline" wrap style={{ justifyContent: 'space-between', width: '100%', marginBottom: 8 }}>
        <Typography.Title level={3} data-testid="page-title" style={{ margin: 0 }}>
          {t('title')}
          {/* busy while the previous filter's count stands in for the new one's (placeholder data) */}
          <Typography.Text type="secondary" style={{ fontSize: 14, marginLeft: 12 }} data-testid="gallery-count"
            aria-busy={first.isPlaceholderData}>
            {t('count', { count: total, all: model.data?.totalImages ?? total })}
          </Typography.Text>
        </Typography.Title>
        <Space wrap>
          <Button icon={<BarChartOutlined />} onClick={() => navigate(statisticsPath(modelId))} data-testid="gallery-statistics">
            {t('statistics:gallery.analyse')}
          </Button>
          <Button icon={<PartitionOutlined />} onClick={() => setSplitting(true)} data-testid="auto-split-open">
            {t('autoSplit.open')}
          </Button>
          <Button type="primary" icon={<CloudUploadOutlined />} onClick={() => setUploading(true)} data-testid="upload-open">
            {t('upload.open')}
          </Button>
        </Space>
      </Space>
      {model.data?.belowRecommendedImages && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 12 }}
          data-testid="gallery-recommend-hint"
          title={t('recommend', { count: model.data.recommendedImages, have: model.data.totalImages })}
        />
      )}
      <Row gutter={16}>
        <Col xs={24} lg={18}>
          <Card size="small" style={{ marginBottom: 12 }}>
            <Space orientation="vertical" style={{ width: '100%' }}>
              <FilterBar value={filters} labels={labels.data ?? []} onChange={changeFilters} />
              <Space wrap>
                <Typography.Text data-testid="gallery-selected">{t('bulk.selected', { count: selected.size })}</Typography.Text>
                <Button size="small" disabled={selected.size === 0} onClick={clear} data-testid="bulk-clear">
                  {t('bulk.clear')}
                </Button>
                <Button size="small" danger icon={<DeleteOutlined />} disabled={selected.size === 0} onClick={bulkDelete} data-testid="bulk-delete">
                  {t('bulk.delete')}
                </Button>
                <SplitActions modelId={modelId} selected={[...selected]} onDone={clear} />
              </Space>
            </Space>
          </Card>
          <Typography.Text type="secondary" className="loupe-gallery-hint" data-testid="gallery-hint">
            {t('grid.hint')}
          </Typography.Text>
          <ImageGrid
            modelId={modelId}
            filters={filters}
            total={total}
            labelNames={labelNames}
            labelColors={labelColors}
            selected={selected}
            onSelect={onSelect}
            onStar={onStar}
            onPreview={setPreview}
          />
        </Col>
        <Col xs={24} lg={6}>
          <Card size="small">
            <LabelPanel modelId={modelId} />
          </Card>
        </Col>
      </Row>
      <UploadWizard open={uploading} modelId={modelId} type={type} onClose={() => setUploading(false)} />
      <AutoSplitDialog modelId={modelId} open={splitting} onClose={() => setSplitting(false)} />
      <ImagePreview
        image={preview}
        type={type}
        labels={labels.data ?? []}
        colors={labelColors}
        classes={classTagsOf(preview ?? undefined, labelNames, labelColors)}
        onClose={() => setPreview(null)}
      />
    </div>
  );
}
