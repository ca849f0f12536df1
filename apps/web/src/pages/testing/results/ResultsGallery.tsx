import { useMemo, useState } from 'react';
import { Button, Empty, Pagination, Result, Segmented, Space, Spin, Typography } from 'antd';
import { TestImageFilters, type TestImageData, type TestImageFilter as Filter, type TestRunData } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { useTestImages } from '../api/testApi';
import type { Task } from '@/pages/training/shared/tasks';
import { overlayStyleOf, type LabelLook } from './overlayGeometry';
import { ResultCard } from './ResultCard';
import { ResultViewer } from './ResultViewer';

export const RESULTS_PAGE_SIZE = 24;

interface Props {
  modelId: string;
  run: TestRunData;
  labels: ReadonlyMap<number, LabelLook>;
  type: string | undefined;
  task: Task;
}

/** The legend under the filters: how this task's results are drawn. */
const LEGEND = { boxes: 'results.legend', masks: 'results.legendMasks', text: 'results.legendText' } as const;

/** The run's images with their results, filtered all / with results / no results / with errors (FP or FN). */
export function ResultsGallery({ modelId, run, labels, type, task }: Props) {
  const { t } = useTranslation('testing');
  const style = overlayStyleOf(task);
  const [filter, setFilter] = useState<Filter>('all');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<number | null>(null);
  const query = useTestImages(modelId, run.id, { filter, page, pageSize: RESULTS_PAGE_SIZE });
  const items = useMemo(() => query.data?.items ?? [], [query.data]);
  const total = query.data?.total ?? 0;
  const openIndex = open === null ? -1 : items.findIndex((i) => i.imageId === open);
  const viewed: TestImageData | null = openIndex >= 0 ? items[openIndex]! : null;

  const changeFilter = (next: Filter) => {
    setFilter(next);
    setPage(1);
  };

  let body: React.ReactNode;
  if (query.isPending) body = <Spin style={{ display: 'block', margin: 32 }} data-testid="test-results-loading" />;
  else if (query.isError)
    body = (
      <Result
        status="warning"
        title={t('results.loadFailed')}
        extra={
          <Button onClick={() => void query.refetch()} data-testid="test-results-retry">
            {t('results.retry')}
          </Button>
        }
        data-testid="test-results-error"
      />
    );
  else if (total === 0) body = <Empty description={t(`results.empty.${filter}`)} data-testid="test-results-empty" />;
  else
    body = (
      <>
        <div className="loupe-test-grid" data-testid="test-results" data-total={total} data-filter={filter} aria-busy={query.isFetching}>
          {items.map((image) => (
            <ResultCard key={image.imageId} image={image} labels={labels} onOpen={(i) => setOpen(i.imageId)} style={style} />
          ))}
        </div>
        {total > RESULTS_PAGE_SIZE && (
          <Pagination
            style={{ marginTop: 12 }}
            current={page}
            pageSize={RESULTS_PAGE_SIZE}
            total={total}
            showSizeChanger={false}
            onChange={setPage}
            data-testid="test-results-pages"
          />
        )}
      </>
    );

  return (
    <div data-testid="test-results-section">
      <Space wrap style={{ justifyContent: 'space-between', width: '100%', marginBottom: 12 }}>
        <Segmented<Filter>
          value={filter}
          onChange={changeFilter}
          options={TestImageFilters.map((f) => ({ value: f, label: <span data-testid={`test-filter-${f}`}>{t(`results.filters.${f}`)}</span> }))}
        />
        <Typography.Text type="secondary" data-testid="test-legend">
          {t(task === 'classify' ? 'results.legendClasses' : LEGEND[style])}
        </Typography.Text>
      </Space>
      {body}
      <ResultViewer
        image={viewed}
        labels={labels}
        type={type}
        style={style}
        onPrev={openIndex > 0 ? () => setOpen(items[openIndex - 1]!.imageId) : undefined}
        onNext={openIndex >= 0 && openIndex < items.length - 1 ? () => setOpen(items[openIndex + 1]!.imageId) : undefined}
        onClose={() => setOpen(null)}
      />
    </div>
  );
}
