import { vi } from 'vitest';
import type { TrainingData, TrainingDetailData } from '@loupe/contracts';
import { useProject, type ProjectData } from '@/stores/project';

export const MODEL_ID = 5;

export function openProject(patch: Partial<ProjectData> = {}) {
  useProject.getState().setProject({ id: String(MODEL_ID), name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no', ...patch });
}

export function training(patch: Partial<TrainingData> = {}): TrainingData {
  const id = patch.id ?? 1;
  return {
    id,
    modelId: MODEL_ID,
    serialNo: id,
    version: `v${id}`,
    rotated: false,
    task: 'detect',
    status: 'succeeded',
    phase: 'validating',
    accuracy: 0.8,
    labeledImages: 40,
    totalImages: 50,
    labelKinds: 2,
    params: {},
    dataVersion: 1,
    startedAt: '2026-01-01T10:00:00.000Z',
    endedAt: '2026-01-01T10:05:00.000Z',
    durationS: 300,
    epoch: 3,
    epochs: 3,
    etaS: null,
    summary: null,
    error: null,
    hasWeights: true,
    resumable: false,
    ...patch,
  };
}

export const epochMetrics = (epoch: number) => ({
  loss: 3 - epoch * 0.5,
  loss_box: 1.2 - epoch * 0.2,
  loss_cls: 1 - epoch * 0.1,
  loss_dfl: 0.8,
  lr: 0.01,
  img_per_s: 40,
  mAP50: 0.2 * epoch,
  mAP50_95: 0.1 * epoch,
  precision: 0.25 * epoch,
  recall: 0.2 * epoch,
  val_loss: 2.5 - epoch * 0.3,
  per_class: { scratch: { AP50: 0.2 * epoch, AP50_95: 0.1 * epoch, instances: 12 }, dent: { AP50: 0.15 * epoch, AP50_95: 0.05 * epoch, instances: 8 } },
});

export function detail(t: TrainingData, patch: Partial<TrainingDetailData> = {}): TrainingDetailData {
  return { ...t, history: Array.from({ length: t.epoch }, (_, i) => ({ epoch: i + 1, epochs: t.epochs, metrics: epochMetrics(i + 1), etaS: null })), evaluation: null, ...patch };
}

/** A text/event-stream response the test writes frames to. */
export function sseResponse() {
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (ctrl = c) });
  const enc = new TextEncoder();
  return {
    response: new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    progress: (data: Record<string, unknown>, id?: number) =>
      ctrl.enqueue(enc.encode(`${id !== undefined ? `id: ${id}\n` : ''}event: progress\ndata: ${JSON.stringify(data)}\n\n`)),
    state: (status: string, error: string | null = null) => ctrl.enqueue(enc.encode(`event: state\ndata: ${JSON.stringify({ status, error })}\n\n`)),
    end: () => ctrl.close(),
  };
}

/** Route calls to the events path to `stream`; everything else to the mock server installed before. */
export function serveEvents(stream: () => Response | Promise<Response>) {
  const inner = globalThis.fetch;
  const calls: { url: string; headers: Record<string, string> }[] = [];
  vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
    if (/\/trainings\/\d+\/events$/.test(url)) {
      calls.push({ url, headers: (init?.headers ?? {}) as Record<string, string> });
      return stream();
    }
    return inner(url, init);
  });
  return calls;
}
