import { useEffect, useRef } from 'react';
import { Empty } from 'antd';
import { echarts, type ChartOption } from './echarts';

interface Props {
  option: ChartOption;
  /** Data points drawn (epochs, versions, classes …): `data-points` for the browser tests. */
  points: number;
  testId: string;
  height?: number;
  /** Shown instead of the chart when there is nothing to draw. */
  emptyText?: string;
  /** Keys of the series drawn: `data-series` (space-separated) for the browser tests. */
  series?: readonly string[];
}

/**
 * One ECharts instance in a div. The instance lives as long as the div; a new option replaces the old one
 * whole (notMerge), so a series that disappears is not left behind. Resizes with its container.
 */
export function EChart({ option, points, testId, height = 280, emptyText, series }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const empty = points === 0 && emptyText !== undefined;

  useEffect(() => {
    const el = ref.current;
    if (!el || empty) return;
    try {
      chart.current = echarts.init(el, undefined, { renderer: 'canvas' });
    } catch {
      // No canvas (jsdom): the container and its data attributes still render.
      return;
    }
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => chart.current?.resize());
    observer?.observe(el);
    return () => {
      observer?.disconnect();
      chart.current?.dispose();
      chart.current = null;
    };
  }, [empty]);

  useEffect(() => {
    try {
      chart.current?.setOption(option, { notMerge: true });
    } catch {
      // A chart that cannot draw must not take the page down.
    }
  }, [option, empty]);

  if (empty) {
    return (
      <div data-testid={testId} data-points={0} data-series={series?.join(' ')} className="loupe-chart-empty">
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={emptyText} />
      </div>
    );
  }
  return <div ref={ref} data-testid={testId} data-points={points} data-series={series?.join(' ')} style={{ width: '100%', height }} />;
}
