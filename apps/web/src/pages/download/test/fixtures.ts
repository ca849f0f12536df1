import type { PackStatusData, TrainingData } from '@loupe/contracts';

export function training(patch: Partial<TrainingData> = {}): TrainingData {
  return {
    id: 11,
    modelId: 5,
    serialNo: 1,
    version: 'v1',
    rotated: false,
    task: 'detect',
    status: 'succeeded',
    phase: 'training',
    accuracy: 0.91,
    labeledImages: 40,
    totalImages: 50,
    labelKinds: 2,
    params: { imgsz: 512 },
    dataVersion: 1,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T01:00:00.000Z',
    durationS: 3600,
    epoch: 100,
    epochs: 100,
    etaS: null,
    summary: null,
    error: null,
    hasWeights: true,
    resumable: false,
    ...patch,
  };
}

export function pack(patch: Partial<PackStatusData> = {}): PackStatusData {
  return {
    packStatus: 'none',
    id: null,
    inputW: null,
    inputH: null,
    modelUrl: null,
    kind: 'model',
    trainingId: null,
    version: null,
    maxDet: null,
    sdkType: null,
    rotated: false,
    fileName: null,
    bytes: null,
    error: null,
    ...patch,
  };
}
