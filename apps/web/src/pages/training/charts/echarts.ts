// Only the charts and components the training pages draw: ECharts' core is tree-shaken, and this module is
// reached only from the lazily loaded pages, so none of it weighs on the app's first load.
import * as echarts from 'echarts/core';
import { BarChart, HeatmapChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, VisualMapComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import type { BarSeriesOption, HeatmapSeriesOption, LineSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, TooltipComponentOption, VisualMapComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';

echarts.use([LineChart, BarChart, HeatmapChart, GridComponent, LegendComponent, TooltipComponent, VisualMapComponent, CanvasRenderer]);

export type ChartOption = ComposeOption<
  LineSeriesOption | BarSeriesOption | HeatmapSeriesOption | GridComponentOption | LegendComponentOption | TooltipComponentOption | VisualMapComponentOption
>;

export { echarts };
