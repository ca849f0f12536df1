import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { click, mockServer, renderPage, type } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import { openProject, training } from '@/pages/training/test/fixtures';
import '@/pages/training/test/chartMock';
import AgentPage from '../AgentPage';
import { agentRun, agentStream, logEntry, serveAgentEvents, trial } from './fixtures';

const LIST = 'GET /api/models/5/agents';
const LABELS = 'GET /api/models/5/labels';
const PARAMS = 'GET /api/models/5/parameters';
const TRAININGS = 'GET /api/models/5/trainings';
const labels = [
  { id: 1, name: 'scratch', color: '#f00', imageCount: 10 },
  { id: 2, name: 'dent', color: '#0f0', imageCount: 8 },
];
const suggested = { f1: { overall: 0.42, f1: 0.9, perClass: {} }, recall: { target: 0.95, conf: 0.18, classes: ['scratch', 'dent'] }, testRunId: 22 };

beforeEach(() => openProject());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

const rows = (testId: string) => screen.queryAllByTestId(testId);

describe('/agent', () => {
  it("shows a finished run's phases, trials, log and result, and opens an earlier run where it failed", async () => {
    const done = agentRun();
    const failed = agentRun({ id: 6, phase: 'failed', adopted: null, trainingIds: [], bestTrainingId: null, testRunIds: [], error: 'engine crashed' });
    const calls = mockServer({
      [LIST]: { data: { items: [done, failed], total: 2 } },
      'GET /api/models/5/agents/7': {
        data: {
          run: done,
          trials: [trial(0, 'complete', 0.41), trial(1, 'pruned', 0.2), trial(2, 'complete', 0.5)],
          log: [logEntry('initialising', 'Analysed 40 images'), logEntry('tuning', 'Trial 2 is the best so far'), logEntry('complete', 'Recommends v12')],
        },
      },
      'GET /api/models/5/agents/6': { data: { run: failed, trials: [trial(0, 'failed', null)], log: [logEntry('initialising', 'Started'), logEntry('tuning', 'Tuning started'), logEntry('failed', 'engine crashed')] } },
      [TRAININGS]: { data: { items: [training({ id: 12, version: 'v12' }), training({ id: 11, version: 'v11' })], total: 2 } },
      'GET /api/models/5/tests/22/analysis': { data: { suggested } },
      [LABELS]: { data: labels },
      [PARAMS]: { data: { saved: {}, updatedAt: null } },
    });
    renderPage(<AgentPage />, '/agent?id=5');

    const current = await screen.findByTestId('agent-phase-current');
    expect(current.getAttribute('data-step')).toBe('complete');
    expect(screen.getByTestId('agent-phase-tuning').getAttribute('data-state')).toBe('done');
    expect(screen.getByTestId('agent-phases').textContent).toContain('18 min planned');
    await waitFor(() => expect(rows('agent-trial-row')).toHaveLength(3));
    expect(rows('agent-trial-row').map((r) => r.getAttribute('data-state'))).toEqual(['complete', 'pruned', 'complete']);
    expect(rows('agent-trial-row')[0]!.textContent).toContain('lr0=0.0123, mosaic=0.5, optimizer=SGD');
    expect(screen.getByTestId('agent-trial-chart').getAttribute('data-points')).toBe('3');
    expect(rows('agent-log-entry').map((e) => e.textContent)).toEqual([
      expect.stringContaining('Analysed 40 images'),
      expect.stringContaining('Trial 2 is the best so far'),
      expect.stringContaining('Recommends v12'),
    ]);
    // The result: adopted, both versions named, the best one with its suggested confidences and links.
    expect(screen.getByTestId('agent-adopted').getAttribute('data-adopted')).toBe('true');
    expect((await screen.findByTestId('agent-best-version')).getAttribute('data-version')).toBe('v12');
    expect(within(screen.getByTestId('agent-result')).getByText('v11')).toBeTruthy();
    expect((await screen.findByTestId('agent-suggested')).textContent).toContain('0.18');
    expect(screen.getByTestId('agent-open-statistics').getAttribute('href')).toBe('/statistics?id=5&tab=test&testId=22');
    // A finished run: no stop, no stream; the start form is offered again.
    expect(screen.queryByTestId('agent-stop')).toBeNull();
    expect(screen.getByTestId('agent-start')).toBeTruthy();
    expect(calls.some((c) => c.url.endsWith('/events'))).toBe(false);

    await click('agent-history-open-6');
    await waitFor(() => expect(screen.getByTestId('agent-run').getAttribute('data-run')).toBe('6'));
    await waitFor(() => expect(screen.getByTestId('agent-phase-current').getAttribute('data-step')).toBe('tuning'));
    expect(screen.getByTestId('agent-phase-current').getAttribute('data-phase')).toBe('failed');
    expect(screen.getByTestId('agent-run-error').textContent).toContain('engine crashed');
    expect(screen.queryByTestId('agent-result')).toBeNull();
  });

  it('starts with the budget in seconds, the recall as a share and the saved early stop (a switch reads 5)', async () => {
    const started = agentRun({ id: 8, phase: 'initialising', adopted: null, trainingIds: [], bestTrainingId: null, testRunIds: [], etaS: 1800, endedAt: null });
    const calls = mockServer({
      [LIST]: { data: { items: [], total: 0 } },
      [LABELS]: { data: labels },
      [PARAMS]: { data: { saved: { time: 2, agent_early_stop: true }, updatedAt: null } },
      'POST /api/models/5/agents': { data: started },
    });
    serveAgentEvents(() => new Promise<Response>(() => undefined));
    renderPage(<AgentPage />, '/agent');
    expect(await screen.findByTestId('agent-empty')).toBeTruthy();
    expect(((await screen.findByTestId('agent-budget')) as HTMLInputElement).value).toBe('120');
    expect((screen.getByTestId('agent-early-stop') as HTMLInputElement).value).toBe('5');

    type('agent-budget', '30');
    type('agent-recall', '90');
    await click('agent-start');
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ budgetS: 1800, recallTarget: 0.9, earlyStop: 5, ngLabelIds: [1, 2] });
    // The new run is shown at once, working: no second start.
    expect((await screen.findByTestId('agent-run')).getAttribute('data-phase')).toBe('initialising');
    expect(screen.queryByTestId('agent-start')).toBeNull();
    expect(screen.getByTestId('agent-eta').getAttribute('data-seconds')).toBe('1800');
  });

  it('follows a working run live (trials, log, time left) and stops it after a confirmation', async () => {
    const working = agentRun({ phase: 'tuning', etaS: 600, adopted: null, trainingIds: [], bestTrainingId: null, testRunIds: [], endedAt: null });
    const calls = mockServer({
      [LIST]: { data: { items: [working], total: 1 } },
      [TRAININGS]: { data: { items: [], total: 0 } },
      'POST /api/models/5/agents/7/stop': { data: { ...working, phase: 'cancelled', etaS: null } },
    });
    const stream = agentStream();
    const events = serveAgentEvents(() => stream.response);
    renderPage(<AgentPage />, '/agent?id=5');
    expect((await screen.findByTestId('agent-phase-current')).getAttribute('data-step')).toBe('tuning');
    await waitFor(() => expect(events).toEqual(['/api/models/5/agents/7/events']));

    await act(async () => {
      stream.send('run', working);
      stream.send('trial', trial(0, 'running', null));
      stream.send('log', logEntry('tuning', 'Trial 0 started'));
      stream.send('trial', trial(0, 'complete', 0.61));
      stream.send('run', { ...working, etaS: 540 });
    });
    await waitFor(() => expect(rows('agent-trial-row')).toHaveLength(1));
    expect(rows('agent-trial-row')[0]!.getAttribute('data-state')).toBe('complete');
    expect(rows('agent-log-entry')).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId('agent-eta').getAttribute('data-seconds')).toBe('540'));

    await click('agent-stop');
    await click('agent-stop-confirm');
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url === '/api/models/5/agents/7/stop')).toBe(true));
    await act(async () => {
      stream.send('run', { ...working, phase: 'cancelled', etaS: null });
    });
    await waitFor(() => expect(screen.getByTestId('agent-run').getAttribute('data-phase')).toBe('cancelled'));
    expect(screen.getByTestId('agent-phase-current').getAttribute('data-step')).toBe('tuning');
    expect(screen.queryByTestId('agent-stop')).toBeNull();
  });
});
