import type { ModelData } from '@loupe/contracts';

/** A model as the server answers it; tests override what they look at. */
export function model(patch: Partial<ModelData> = {}): ModelData {
  return {
    id: 7,
    projectId: 7,
    trainId: null,
    name: 'Gears',
    note: '',
    code: 'M-7',
    type: 'DETECTION',
    sidebarType: 8,
    productType: 'detection',
    projectStatus: 'no',
    trainingStatus: 'notTrained',
    testStatus: 'notTested',
    createdAt: '2026-01-01T00:00:00.000Z',
    trainingCount: 0,
    labeledImages: 0,
    totalImages: 0,
    labelCount: 0,
    belowRecommendedImages: true,
    recommendedImages: 30,
    dataVersion: 0,
    multiLabel: false,
    ...patch,
  };
}
