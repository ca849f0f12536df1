// The training pages' ECharts core, plus the scatter chart the resolution plot needs and the mark line of the
// chosen confidence. `echarts.use` registers
// globally, so the shared EChart element draws it once this module is loaded (only with /statistics).
import { ScatterChart, type ScatterSeriesOption } from 'echarts/charts';
import { MarkLineComponent, type MarkLineComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';
import { echarts, type ChartOption as BaseOption } from '@/pages/training/charts/echarts';

echarts.use([ScatterChart, MarkLineComponent]);

export type ChartOption = BaseOption | ComposeOption<ScatterSeriesOption | MarkLineComponentOption>;
