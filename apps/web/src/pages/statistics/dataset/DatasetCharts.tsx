import { useMemo } from 'react';
import { Descriptions, Row } from 'antd';
import type { AnalysisSplit, DatasetAnalysis, Histogram } from '@loupe/contracts';
import { useTranslation } from '@/i18n';
import { ChartCard } from '../charts/ChartCard';
import { StatChart } from '../charts/StatChart';
import { heatmapOption, histogramOption, histogramTotal, perClassOption, perSplitOption, resolutionOption } from '../charts/datasetOptions';

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/** One histogram chart, empty when no value fell in any bin. */
function HistogramChart({ h, name, axis, color }: { h: Histogram; name: string; axis: string; color?: string }) {
  const { t } = useTranslation('statistics');
  const option = useMemo(() => histogramOption(h, axis, color), [h, axis, color]);
  return <StatChart option={option} name={name} points={histogramTotal(h)} emptyText={t('dataset.charts.empty')} />;
}

function Summary({ result }: { result: DatasetAnalysis }) {
  const { t } = useTranslation('statistics');
  const { counts, boxes } = result;
  const items = [
    { key: 'images', label: t('dataset.summary.images'), children: <span data-testid="stat-images">{counts.images}</span> },
    { key: 'labeled', label: t('dataset.summary.labeled'), children: <span data-testid="stat-labeled">{counts.labeled}</span> },
    { key: 'instances', label: t('dataset.summary.instances'), children: <span data-testid="stat-instances">{counts.instances}</span> },
    { key: 'imbalance', label: t('dataset.summary.imbalance'), children: <span data-testid="stat-imbalance">{`${counts.imbalance.toFixed(1)} : 1`}</span> },
    ...(boxes
      ? [
          {
            key: 'tiny',
            label: t('dataset.summary.tinyShare', { px: boxes.tinyPx, imgsz: result.imgsz }),
            children: (
              <span data-testid="stat-tiny-share" data-value={boxes.tinyShare}>
                {pct(boxes.tinyShare)}
              </span>
            ),
          },
        ]
      : []),
  ];
  return <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 5 }} items={items} />;
}

/** Every dataset chart that applies: classes and splits always, box figures when the task has boxes. */
export function DatasetCharts({ result }: { result: DatasetAnalysis }) {
  const { t } = useTranslation('statistics');
  const c = (key: string) => t(`dataset.charts.${key}`);
  const { counts, boxes } = result;
  const split = useMemo(() => (s: AnalysisSplit) => t(`split.${s}`), [t]);
  // Classification counts images per class (an instance is an image).
  const perClass = useMemo(() => perClassOption(counts.perClass, split), [counts.perClass, split]);
  const perSplit = useMemo(() => perSplitOption(counts.perSplit.images, split), [counts.perSplit.images, split]);
  const resolutions = useMemo(
    () => resolutionOption(result.resolutions, { width: t('dataset.charts.width'), height: t('dataset.charts.height'), images: t('dataset.charts.images') }),
    [result.resolutions, t],
  );
  const heatmap = useMemo(() => (boxes ? heatmapOption(boxes.heatmap) : null), [boxes]);
  const empty = c('empty');
  return (
    <>
      <Summary result={result} />
      <Row gutter={[16, 16]} style={{ marginTop: 8 }}>
        <ChartCard title={boxes ? c('perClass') : c('perClassImages')}>
          <StatChart option={perClass} name="per-class" points={counts.perClass.length} emptyText={empty} />
        </ChartCard>
        <ChartCard title={c('perSplit')}>
          <StatChart option={perSplit} name="per-split" points={counts.images} emptyText={empty} />
        </ChartCard>
        {boxes && (
          <ChartCard title={c('objectsPerImage')}>
            <HistogramChart h={counts.objectsPerImage} name="objects-per-image" axis={c('objects')} />
          </ChartCard>
        )}
        <ChartCard title={c('resolutions')}>
          <StatChart option={resolutions} name="resolutions" points={result.resolutions.length} emptyText={empty} />
        </ChartCard>
        {boxes && (
          <>
            <ChartCard title={c('boxWidth')}>
              <HistogramChart h={boxes.width} name="box-width" axis={c('pixels')} />
            </ChartCard>
            <ChartCard title={c('boxHeight')}>
              <HistogramChart h={boxes.height} name="box-height" axis={c('pixels')} color="#13c2c2" />
            </ChartCard>
            <ChartCard title={c('areaRel')}>
              <HistogramChart h={boxes.areaRel} name="area-rel" axis={c('share')} color="#722ed1" />
            </ChartCard>
            <ChartCard title={c('aspect')}>
              <HistogramChart h={boxes.aspect} name="aspect" axis={c('ratio')} color="#eb2f96" />
            </ChartCard>
            <ChartCard title={c('heatmap')}>
              <StatChart option={heatmap!} name="heatmap" points={boxes.count} emptyText={empty} height={320} />
            </ChartCard>
          </>
        )}
      </Row>
    </>
  );
}
