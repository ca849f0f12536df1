import { EChart } from '@/pages/training/charts/EChart';
import type { ChartOption as BaseOption } from '@/pages/training/charts/echarts';
import type { ChartOption } from './echarts';

interface Props {
  option: ChartOption;
  /** `chart-<name>` is the element's test id. */
  name: string;
  points: number;
  emptyText: string;
  height?: number;
  series?: readonly string[];
}

/** The training pages' chart element with this page's chart kinds registered (./echarts). */
export function StatChart({ option, name, points, emptyText, height, series }: Props) {
  return <EChart option={option as BaseOption} points={points} testId={`chart-${name}`} emptyText={emptyText} height={height} series={series} />;
}
