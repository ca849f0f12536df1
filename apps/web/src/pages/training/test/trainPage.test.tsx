import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { setFeedbackPort } from '@/api/feedback';
import { click, mockServer, renderPage } from '@/pages/auth/test/harness';
import { useSession } from '@/stores/session';
import { useProject } from '@/stores/project';
import './chartMock';
import TrainPage from '../train/TrainPage';
import { detail, epochMetrics, openProject, serveEvents, sseResponse, training } from './fixtures';

const LIST = 'GET /api/models/5/trainings';

beforeEach(() => openProject());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

describe('/train', () => {
  it('lists the versions with the SPEC §3 fields, a reasoned dash for accuracy, resume and the accuracy trend', async () => {
    const items = [
      training({ id: 3, status: 'failed', accuracy: null, resumable: true, error: 'the server stopped while this training was running' }),
      training({ id: 2, accuracy: null, labeledImages: 20, totalImages: 25 }),
      training({ id: 1, accuracy: 0.8, rotated: true }),
    ];
    const resumed = training({ id: 3, status: 'queued', phase: 'queued', accuracy: null, epoch: 2, epochs: 3 });
    const routes = {
      [LIST]: { data: { items, total: 3 } },
      'GET /api/models/5/trainings/3': { data: detail(items[0]!) },
      'POST /api/models/5/trainings/3/resume': { data: resumed },
      'GET /api/models/5/parameters': { data: { saved: { imgsz: 1280 }, updatedAt: null } },
    };
    const calls = mockServer(routes);
    serveEvents(() => new Promise<Response>(() => undefined));
    renderPage(<TrainPage />, '/train/detection');

    const row2 = await screen.findByTestId('train-row-2');
    expect(row2.getAttribute('data-status')).toBe('succeeded');
    expect(within(row2).getByText('20 / 25')).toBeTruthy();
    expect(screen.getByTestId('train-accuracy-2').textContent).toBe('—');
    expect(screen.getByTestId('train-accuracy-2').getAttribute('data-reason')).toBe('fewLabeled');
    expect(screen.getByTestId('train-accuracy-3').getAttribute('data-reason')).toBe('notSucceeded');
    expect(screen.getByTestId('train-accuracy-1').textContent).toBe('80.0 %');
    expect(within(screen.getByTestId('train-row-1')).getByText('With')).toBeTruthy();
    expect(within(screen.getByTestId('train-row-1')).getByText('5 min 00 s')).toBeTruthy();
    expect(screen.getByTestId('train-accuracy-trend').getAttribute('data-points')).toBe('1');
    expect((await screen.findByTestId('train-params-note')).getAttribute('data-changed')).toBe('1');
    // The latest failed: its error, and its curves (it is the latest training).
    expect(screen.getByTestId('train-failed').textContent).toContain('server stopped');
    await waitFor(() => expect(screen.getByTestId('train-curve-loss').getAttribute('data-points')).toBe('3'));
    // The version becomes the latest succeeded one: the sidebar shows finetuned_v2.
    await waitFor(() => expect(useProject.getState().versions['M-5']).toBe('v2'));
    expect(useProject.getState().project?.hasTraining).toBe(true);

    routes[LIST] = { data: { items: [resumed, ...items.slice(1)], total: 3 } };
    await click('train-resume-3');
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url.endsWith('/trainings/3/resume'))).toBe(true));
    // Queued again: the project is locked on /train.
    await waitFor(() => expect(useProject.getState().project?.projectStatus).toBe('training'));
    expect(await screen.findByTestId('train-progress')).toBeTruthy();
    // The running training leads to its monitor (engine CPU, memory, log lines).
    expect(screen.getByTestId('train-open-monitor').getAttribute('href')).toBe('/monitor');
  });

  it('starts with the chosen rotated-box type; 8001 is a notice with a button to /mark', async () => {
    const notice = vi.fn();
    setFeedbackPort({ notice });
    const calls = mockServer({
      [LIST]: { data: { items: [], total: 0 } },
      'POST /api/models/5/trainings': { code: 8001, status: 409, message: 'No labelled images to train. Please label images first.' },
      'GET /api/models/5/parameters': { data: { saved: {}, updatedAt: null } },
    });
    renderPage(<TrainPage />, '/train/detection');
    expect(await screen.findByTestId('train-versions-empty')).toBeTruthy();
    expect(screen.getByTestId('train-accuracy-trend').getAttribute('data-points')).toBe('0');

    await click('train-rotated-rotated');
    await click('train-start');
    await waitFor(() => expect(notice).toHaveBeenCalledWith(expect.objectContaining({ actionLabel: 'actions.goMark', to: '/mark/detection' })));
    const starts = () => calls.filter((c) => c.method === 'POST' && c.url.endsWith('/trainings'));
    expect(starts()[0]?.body).toEqual({ rotated: true });
    expect(useProject.getState().project?.projectStatus).toBe('no');

    await click('train-rotated-auto');
    await click('train-start');
    await waitFor(() => expect(starts()).toHaveLength(2));
    expect(starts()[1]!.body).toEqual({});
  });

  it('follows a running training live, stops it after a confirmation, and unlocks the project at the end', async () => {
    useSession.setState({ token: 'tok-1' });
    const running = training({ id: 9, status: 'queued', phase: 'queued', accuracy: null, epoch: 0, epochs: 3, endedAt: null, durationS: null });
    const routes = {
      [LIST]: { data: { items: [running], total: 1 } },
      'POST /api/models/5/trainings/9/stop': { data: running },
      'GET /api/models/5/parameters': { data: { saved: {}, updatedAt: null } },
    };
    const calls = mockServer(routes);
    const stream = sseResponse();
    const streams = serveEvents(() => stream.response);
    renderPage(<TrainPage />, '/train/detection');

    expect(await screen.findByTestId('train-progress')).toBeTruthy();
    await waitFor(() => expect(useProject.getState().project?.projectStatus).toBe('training'));
    expect(screen.getByTestId('train-start')).toHaveProperty('disabled', true);
    expect(streams[0]!.headers['X-Token']).toBe('tok-1');

    await act(async () => {
      stream.progress({ phase: 'training', epoch: 1, epochs: 3, metrics: epochMetrics(1), etaS: 120 }, 1);
      stream.progress({ phase: 'training', epoch: 2, epochs: 3, metrics: epochMetrics(2), etaS: 60 }, 2);
      stream.progress({ phase: 'validating', epoch: 2, epochs: 3, metrics: {}, etaS: 60 });
    });
    await waitFor(() => expect(screen.getByTestId('train-curve-loss').getAttribute('data-points')).toBe('2'));
    expect(screen.getByTestId('train-curve-metrics').getAttribute('data-points')).toBe('2');
    const epoch = screen.getByTestId('train-epoch');
    expect([epoch.getAttribute('data-epoch'), epoch.getAttribute('data-epochs'), epoch.textContent]).toEqual(['2', '3', 'Epoch 2 / 3']);
    expect(screen.getByTestId('train-phase').getAttribute('data-phase')).toBe('validating');
    expect(screen.getByTestId('train-eta').textContent).toBe('Time left: 1 min 00 s');
    expect(screen.getByTestId('train-stream').getAttribute('data-state')).toBe('open');
    // The version table follows the stream: queued when listed, training now.
    expect(screen.getByTestId('train-row-9').getAttribute('data-status')).toBe('training');

    await click('train-stop');
    expect(await screen.findByText(/abandons the training's progress/)).toBeTruthy();
    await click('train-stop-confirm');
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.url.endsWith('/trainings/9/stop'))).toBe(true));

    routes[LIST] = { data: { items: [{ ...running, status: 'cancelled', endedAt: '2026-01-01T10:03:00.000Z', durationS: 180 }], total: 1 } };
    await act(async () => stream.state('cancelled'));
    await waitFor(() => expect(useProject.getState().project?.projectStatus).toBe('no'));
    expect(await screen.findByText('Training v9 was cancelled.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('train-progress')).toBeNull());
    expect(screen.getByTestId('train-row-9').getAttribute('data-status')).toBe('cancelled');
  });

  it('shows the estimate and its warnings beside the start, asked again when the rotated choice changes', async () => {
    const estimate = {
      task: 'detect', trainImages: 12, validImages: 4, batch: 3, stepsPerEpoch: 4, epochs: 1, steps: 4, imgsz: 64, model: 'p',
      seconds: 95, imgPerS: 96, basis: 'table', basedOn: 0,
      warnings: [
        { kind: 'epochs', steps: 4, minSteps: 400, epochs: 100 },
        { kind: 'imgsz', imgsz: 64, boxPx: 3.2, target: 160 },
      ],
    };
    const calls = mockServer({
      [LIST]: { data: { items: [], total: 0 } },
      'GET /api/models/5/parameters': { data: { saved: { epochs: 1, imgsz: 64 }, updatedAt: null } },
      'POST /api/models/5/trainings/estimate': { data: estimate },
    });
    renderPage(<TrainPage />, '/train/detection');
    const box = await screen.findByTestId('train-estimate');
    expect(box.getAttribute('data-basis')).toBe('table');
    expect(screen.getByTestId('train-estimate-time').textContent).toBe('About 1 min 35 s of training on this server');
    expect(screen.getByTestId('train-estimate-plan').textContent).toBe('12 training images at batch 3: 4 steps per epoch, 4 steps over the planned epochs (1)');
    expect(screen.getByTestId('train-warnings-epochs').textContent).toContain('Use at least 100 epochs');
    expect(screen.getByTestId('train-warnings-imgsz').textContent).toContain('at least 160');
    expect(calls.filter((c) => c.url.endsWith('/estimate')).map((c) => c.body)).toEqual([{}]);
    await click('train-rotated-rotated');
    await waitFor(() => expect(calls.filter((c) => c.url.endsWith('/estimate')).map((c) => c.body)).toEqual([{}, { rotated: true }]));
  });

  it('a succeeded training that learned nothing is not a green Succeeded alone: the verdict with its advice', async () => {
    const verdict = {
      level: 'unusable' as const, metric: 'mAP50', value: 0, unusableBelow: 0.05, weakBelow: 0.3,
      advice: [
        { kind: 'epochs' as const, steps: 4, minSteps: 400, epochs: 100 },
        { kind: 'labels' as const, label: 'scratch', count: 8, target: 30 },
      ],
    };
    const items = [training({ id: 2, accuracy: 0, verdict }), training({ id: 1, accuracy: 0.8, verdict: { ...verdict, level: 'usable', value: 0.8, advice: [] } })];
    mockServer({
      [LIST]: { data: { items, total: 2 } },
      'GET /api/models/5/trainings/2': { data: detail(items[0]!) },
      'GET /api/models/5/trainings/1': { data: detail(items[1]!) },
      'GET /api/models/5/parameters': { data: { saved: {}, updatedAt: null } },
    });
    serveEvents(() => new Promise<Response>(() => undefined));
    renderPage(<TrainPage />, '/train/detection');
    const alert = await screen.findByTestId('train-verdict');
    expect(alert.getAttribute('data-level')).toBe('unusable');
    expect(alert.textContent).toContain('Learned nothing usable');
    expect(screen.getByTestId('train-verdict-text').textContent).toBe('v2 finished, but its mAP50 is 0.0 % (below 5.0 %): its predictions cannot be used.');
    expect(screen.getByTestId('train-verdict-advice-epochs').textContent).toBe('Train longer: only 4 steps ran. Use at least 100 epochs (400 steps).');
    expect(screen.getByTestId('train-verdict-advice-labels').textContent).toContain('“scratch” has 8 training examples');
    expect(screen.getByTestId('train-row-verdict-2').textContent).toBe('Learned nothing usable');
    expect(screen.getByTestId('train-row-status-2').className).not.toContain('success');
    // The usable version keeps its green tag and no verdict; choosing it hides the alert.
    expect(screen.queryByTestId('train-row-verdict-1')).toBeNull();
    expect(screen.getByTestId('train-row-status-1').className).toContain('success');
    await click('train-row-1');
    await waitFor(() => expect(screen.queryByTestId('train-verdict')).toBeNull());
  });

  it('sends a model opened on another type’s path to its own', async () => {
    mockServer({ [LIST]: { data: { items: [], total: 0 } } });
    renderPage(<TrainPage />, '/train/ocr');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/train/detection'));
  });
});
