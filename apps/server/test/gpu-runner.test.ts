import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { deviceSpec, trainCommand } from '../src/runner/engine.js';
import { startApp, type TestApp } from './helper.js';
import { userToken } from './gallery-fixtures.js';
import { labeledStudio, start, TINY, waitFor } from './training-fixtures.js';

/**
 * Issue 34 item 4: a runner with several GPUs trains one job on all of them under torchrun. No GPU here: the same
 * command line runs two CPU processes (gloo) instead, which is what the runner builds and what the engine must
 * take. The CUDA half is engine/tests/test_gpu.py's, skipped where no GPU exists.
 */
describe('the command a GPU runner trains with', () => {
  it('is the engine alone on one GPU, and the engine under torchrun, one process per GPU, above one', () => {
    const one = { config: loadConfig({}) };
    expect(trainCommand(one)).toEqual(one.config.engine.command);
    expect(deviceSpec(one)).toEqual({});
    const four = { config: loadConfig({ RUNNER_GPUS: '4', RUNNER_DEVICE: 'cuda' }) };
    expect(trainCommand(four)).toEqual(['/usr/bin/python3', '-m', 'loupe_engine.torchrun', '--standalone', '--nproc_per_node=4', '-m', 'loupe_engine']);
    expect(deviceSpec(four)).toEqual({ device: 'cuda' });
    expect(() => loadConfig({ RUNNER_GPUS: '2', RUNNER_DEVICE: 'cuda:1' })).toThrow(/CUDA_VISIBLE_DEVICES/);
  });
});

describe('a runner set to two devices trains one job in two processes', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    const base = loadConfig({});
    t = await startApp({ runner: { ...base.runner, gpus: 2, device: 'cpu' } });
    token = await userToken(t.app);
  });
  afterAll(() => t?.close());

  it('succeeds with every epoch reported once (rank 0 speaks), from two engine processes of one torchrun', async () => {
    const s = await labeledStudio(t.app, token);
    const r = await start(t.app, token, s.model.id, { ...TINY, epochs: 3 });
    expect(r.code, r.message).toBe(0);
    // The ranks torchrun started, seen in their environment while they train.
    const ranks = new Set<string>();
    const watch = setInterval(() => {
      for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
        try {
          if (!fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('loupe_engine')) continue;
          const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
          if (env.includes('WORLD_SIZE=2')) ranks.add(env.find((e) => e.startsWith('LOCAL_RANK='))!);
        } catch {
          // gone meanwhile
        }
      }
    }, 50);
    try {
      const d = await waitFor(t.app, token, s.model.id, r.data.id, (x) => !['queued', 'preparing', 'training'].includes(x.status), 120_000);
      expect(d.status, d.error ?? '').toBe('succeeded');
      expect(d.history.map((h) => h.epoch)).toEqual([1, 2, 3]);
      expect(d.hasWeights).toBe(true);
    } finally {
      clearInterval(watch);
    }
    expect([...ranks].sort()).toEqual(['LOCAL_RANK=0', 'LOCAL_RANK=1']);
  }, 150_000);
});
