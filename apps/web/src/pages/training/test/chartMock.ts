import { vi } from 'vitest';

/** Options the pages handed to ECharts, newest last per chart element (jsdom has no canvas to draw on). */
export const chartOptions = new Map<HTMLElement, unknown>();

vi.mock('../charts/echarts', () => ({
  echarts: {
    init: (el: HTMLElement) => ({
      setOption: (option: unknown) => chartOptions.set(el, option),
      resize: () => undefined,
      dispose: () => chartOptions.delete(el),
    }),
  },
}));
