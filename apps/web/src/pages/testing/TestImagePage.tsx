import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { Alert, Button, Empty, Pagination, Result, Segmented, Space, Spin, Typography } from 'antd';
import { CloudUploadOutlined, PlayCircleOutlined } from '@ant-design/icons';
import type { ModelType } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { stepPath } from '@/routes/steps';
import { chooseImages, chosenImages } from './api/testSelection';
import { TestImageCard } from './images/TestImageCard';
import { TEST_IMAGE_FILTERS, TEST_IMAGES_PAGE_SIZE, useTestSplitImages, type TestImageFilter } from './images/testImagesApi';
import { TestUpload } from './images/TestUpload';
import { ProjectRoute } from './shared/ProjectRoute';
import './testing.css';

/**
 * /testImage (per model type): the images a test runs on. Upload images for testing (they go to the test
 * split), see which are tested and with how many results, and send a selection, or the uploads, to /test.
 * An image's own results open on /mark (dashed boxes, convert to annotations); a run's results on /test.
 */
export default function TestImagePage() {
  return <ProjectRoute step="testImage">{(p) => <TestImages key={p.id} modelId={p.id} type={p.type} />}</ProjectRoute>;
}

function TestImages({ modelId, type }: { modelId: string; type: ModelType }) {
  const { t } = useTranslation('testing');
  const navigate = useNavigate();
  const [filter, setFilter] = useState<TestImageFilter>('all');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<ReadonlySet<number>>(() => new Set(chosenImages(modelId)));
  const [uploading, setUploading] = useState(false);
  const query = useTestSplitImages(modelId, filter, page);
  const items = query.data?.items ?? [];
  const total = query.data?.total ?? 0;

  const onSelect = useCallback((id: number, on: boolean) => {
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const testImages = (ids: number[]) => {
    chooseImages(modelId, ids);
    navigate(stepPath('test', type));
  };

  let body: React.ReactNode;
  if (query.isPending) body = <Spin style={{ display: 'block', margin: 32 }} data-testid="test-images-loading" />;
  else if (query.isError)
    body = (
      <Result
        status="warning"
        title={t('images.loadFailed')}
        extra={
          <Button onClick={() => void query.refetch()} data-testid="test-images-retry">
            {t('results.retry')}
          </Button>
        }
        data-testid="test-images-error"
      />
    );
  else if (total === 0)
    body = (
      <Empty description={t(filter === 'all' ? 'images.empty' : 'images.emptyFilter')} data-testid="test-images-empty">
        {filter === 'all' && (
          <Button type="primary" icon={<CloudUploadOutlined />} onClick={() => setUploading(true)}>
            {t('images.upload')}
          </Button>
        )}
      </Empty>
    );
  else
    body = (
      <>
        <div className="loupe-test-grid" data-testid="test-images" data-total={total}>
          {items.map((image) => (
            <TestImageCard key={image.id} image={image} type={type} selected={selected.has(image.id)} onSelect={onSelect} />
          ))}
        </div>
        {total > TEST_IMAGES_PAGE_SIZE && (
          <Pagination style={{ marginTop: 12 }} current={page} pageSize={TEST_IMAGES_PAGE_SIZE} total={total} showSizeChanger={false} onChange={setPage} data-testid="test-images-pages" />
        )}
      </>
    );

  return (
    <div className="loupe-page" data-testid="test-images-page">
      <Space align="baseline" wrap style={{ justifyContent: 'space-between', width: '100%', marginBottom: 8 }}>
        <Typography.Title level={3} data-testid="page-title" style={{ margin: 0 }}>
          {t('images.title')}
          <Typography.Text type="secondary" style={{ fontSize: 14, marginLeft: 12 }} data-testid="test-images-count">
            {t('images.count', { count: total })}
          </Typography.Text>
        </Typography.Title>
        <Space wrap>
          <Button icon={<PlayCircleOutlined />} onClick={() => testImages([])} data-testid="test-images-run-split">
            {t('images.testSplit')}
          </Button>
          <Button type="primary" icon={<CloudUploadOutlined />} onClick={() => setUploading(true)} data-testid="test-images-upload">
            {t('images.upload')}
          </Button>
        </Space>
      </Space>
      <Alert type="info" showIcon style={{ marginBottom: 12 }} title={t('images.intro')} />
      <Space wrap style={{ marginBottom: 12 }}>
        <Segmented<TestImageFilter>
          value={filter}
          onChange={(f) => {
            setFilter(f);
            setPage(1);
          }}
          options={TEST_IMAGE_FILTERS.map((f) => ({ value: f, label: <span data-testid={`test-images-filter-${f}`}>{t(`images.filters.${f}`)}</span> }))}
        />
        <Typography.Text data-testid="test-images-selected">{t('images.selected', { count: selected.size })}</Typography.Text>
        <Button size="small" disabled={items.length === 0} onClick={() => setSelected((s) => new Set([...s, ...items.map((i) => i.id)]))} data-testid="test-images-select-page">
          {t('images.selectPage')}
        </Button>
        <Button size="small" disabled={selected.size === 0} onClick={() => setSelected(new Set())} data-testid="test-images-clear">
          {t('images.clear')}
        </Button>
        <Button type="primary" size="small" icon={<PlayCircleOutlined />} disabled={selected.size === 0} onClick={() => testImages([...selected])} data-testid="test-images-run">
          {t('images.testSelected', { count: selected.size })}
        </Button>
      </Space>
      {body}
      <TestUpload open={uploading} modelId={modelId} onClose={() => setUploading(false)} onTest={testImages} />
    </div>
  );
}
