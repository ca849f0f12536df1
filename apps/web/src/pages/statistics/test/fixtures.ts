import type { DatasetAnalysis, DatasetAnalysisData, TestAnalysisData } from '@loupe/contracts';

const split = (train: number, val: number, test = 0, none = 0) => ({ train, val, test, none });

/** A detection analysis of 6 images, 2 classes, one leak and one degenerate box; known figures throughout. */
export function analysisResult(patch: Partial<DatasetAnalysis> = {}): DatasetAnalysis {
  return {
    task: 'detect',
    imgsz: 640,
    counts: {
      images: 6,
      labeled: 5,
      instances: 9,
      perSplit: { images: split(4, 1, 0, 1), instances: split(7, 2) },
      perClass: [
        { id: 1, name: 'dent', images: split(3, 1), instances: split(5, 2) },
        { id: 2, name: 'scratch', images: split(2, 0), instances: split(2, 0) },
      ],
      objectsPerImage: { edges: [0, 1, 2, 3], counts: [1, 2, 3] },
      imbalance: 3.5,
    },
    resolutions: [
      { width: 640, height: 480, count: 5 },
      { width: 1280, height: 720, count: 1 },
    ],
    boxes: {
      count: 9,
      width: { edges: [0, 8, 16, 32], counts: [2, 3, 4] },
      height: { edges: [0, 8, 16, 32], counts: [1, 4, 4] },
      widthRel: { edges: [0, 0.5, 1], counts: [8, 1] },
      heightRel: { edges: [0, 0.5, 1], counts: [7, 2] },
      areaRel: { edges: [0, 0.01, 0.1, 1], counts: [3, 5, 1] },
      aspect: { edges: [0.25, 1, 4], counts: [4, 5] },
      heatmap: { rows: 2, cols: 3, cells: [4, 0, 0, 0, 0, 5] },
      tinyShare: 0.222,
      tinyPx: 8,
    },
    findings: [
      { code: 'rare_class', severity: 'warning', count: 1, params: { classes: 'scratch', min: 10 }, imageIds: [3, 4] },
      { code: 'leakage', severity: 'error', count: 1, params: {}, imageIds: [1, 2], pairs: [[1, 2]], fix: 'moveLeaked' },
      { code: 'degenerate_box', severity: 'error', count: 2, params: {}, imageIds: [5], annotationIds: [50, 51], fix: 'deleteDegenerate' },
    ],
    recommendations: [{ code: 'imgsz', params: { imgsz: 960, share: 31, px: 8, at: 640 }, set: { imgsz: 960 } }],
    baseParams: { imgsz: 960 },
    ...patch,
  };
}

export function analysisData(patch: Partial<DatasetAnalysisData> = {}): DatasetAnalysisData {
  return {
    id: 7,
    modelId: 5,
    status: 'completed',
    stale: false,
    imgsz: 640,
    result: analysisResult(),
    error: null,
    createdAt: '2026-01-02T00:00:00.000Z',
    finishedAt: '2026-01-02T00:00:10.000Z',
    ...patch,
  };
}

export function testAnalysis(patch: Partial<TestAnalysisData> = {}): TestAnalysisData {
  return {
    task: 'detect',
    conf: 0.25,
    minConf: 0.05,
    perClass: [
      { name: 'dent', precision: 0.8, recall: 0.5, f1: 0.615, support: 8 },
      { name: 'scratch', precision: 1, recall: 1, f1: 1, support: 2 },
    ],
    prCurves: [
      { name: 'dent', points: [[0.25, 1], [0.5, 0.8]] },
      { name: 'scratch', points: [[1, 1]] },
    ],
    f1Curve: [[0.05, 0.5], [0.25, 0.7], [0.9, 0.2]],
    f1CurvePerClass: [{ name: 'dent', points: [[0.05, 0.4], [0.9, 0.1]] }],
    confidence: { edges: [0, 0.5, 1], tp: [1, 5], fp: [3, 1] },
    errors: { falsePositive: 1, missed: 4, wrongClass: 0, poorLocalisation: 2 },
    confusion: null,
    suggested: {
      f1: { overall: 0.42, f1: 0.87, perClass: { dent: 0.4, scratch: 0.6 } },
      recall: { target: 0.95, conf: 0.18, classes: ['dent'] },
      testRunId: 9,
    },
    ...patch,
  };
}
