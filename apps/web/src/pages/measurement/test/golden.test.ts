import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { GoldenData, GoldenJobData } from '@loupe/contracts';
import { GoldenFailed, measureGolden } from '../measurementApi';

const fetchMock = vi.fn<typeof fetch>();
const calls: { method: string; url: string }[] = [];

function reply(data: GoldenJobData) {
  fetchMock.mockImplementationOnce(async (input, init) => {
    calls.push({ method: init?.method ?? 'GET', url: String(input) });
    return new Response(JSON.stringify({ code: 0, message: 'ok', data }), { status: 200 });
  });
}

const RESULT: GoldenData = { images: 2, objects: 2, unit: 'px', stats: [], proposal: { unit: 'px', labels: [] } as unknown as GoldenData['proposal'] };

beforeEach(() => {
  calls.length = 0;
  fetchMock.mockReset();
  vi.stubGlobal('fetch', fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('golden samples are a job the page polls (issue 30)', () => {
  it('queues with one POST, then asks about the job until it has ended, and answers its proposal', async () => {
    reply({ jobId: 7, status: 'queued', result: null, error: null });
    reply({ jobId: 7, status: 'queued', result: null, error: null });
    reply({ jobId: 7, status: 'running', result: null, error: null });
    reply({ jobId: 7, status: 'succeeded', result: RESULT, error: null });
    await expect(measureGolden('3', { imageIds: [1, 2], marginPct: 5 }, 1)).resolves.toEqual(RESULT);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'POST /api/models/3/measurement/golden',
      ...Array(3).fill('GET /api/models/3/measurement/golden/7'),
    ]);
  });

  it('throws the server’s reason when the job failed', async () => {
    reply({ jobId: 8, status: 'queued', result: null, error: null });
    reply({ jobId: 8, status: 'failed', result: null, error: 'The job ran past its time limit and was stopped: 300 s' });
    const error = await measureGolden('3', { imageIds: [1], marginPct: 0 }, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GoldenFailed);
    expect((error as Error).message).toBe('The job ran past its time limit and was stopped: 300 s');
  });
});
