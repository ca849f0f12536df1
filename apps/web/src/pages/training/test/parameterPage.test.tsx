import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { click, mockServer, renderPage } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import ParameterPage from '../parameter/ParameterPage';
import { openProject } from './fixtures';

const PARAMS = '/api/models/5/parameters';

beforeEach(() => openProject());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
});

const input = (key: string) => screen.getByTestId(`param-${key}`) as HTMLInputElement;
const field = (key: string) => screen.getByTestId(`param-field-${key}`);
async function type(key: string, value: string) {
  await act(async () => {
    fireEvent.change(input(key), { target: { value } });
  });
}

describe('/parameter', () => {
  it('shows the saved values over the defaults, by group, with help and which values differ', async () => {
    mockServer({ [`GET ${PARAMS}`]: { data: { saved: { imgsz: 1280, fliplr: 0 }, updatedAt: '2026-01-02T08:00:00.000Z' } } });
    renderPage(<ParameterPage />, '/parameter');
    await screen.findByTestId('param-form');
    for (const group of ['basic', 'augmentation', 'learning', 'loss']) expect(screen.getByTestId(`param-group-${group}`)).toBeTruthy();
    expect(input('imgsz').value).toBe('1280');
    expect(input('epochs').value).toBe('100');
    expect(field('imgsz').getAttribute('data-changed')).toBe('true');
    expect(field('epochs').getAttribute('data-changed')).toBe('false');
    expect(screen.getByTestId('param-changed-count').getAttribute('data-count')).toBe('2');
    expect(screen.getByTestId('param-group-augmentation').getAttribute('data-changed')).toBe('1');
    expect(screen.getByTestId('param-help-time').textContent).toContain('0 means no limit');
    expect(field('imgsz').textContent).toContain('Default: 640');
    expect(screen.queryByTestId('param-unsaved')).toBeNull();

    await click('param-restore-imgsz');
    await waitFor(() => expect(input('imgsz').value).toBe('640'));
    expect(screen.getByTestId('param-changed-count').getAttribute('data-count')).toBe('1');
    expect(screen.getByTestId('param-unsaved')).toBeTruthy();
  });

  it('checks values by the contract rules and saves only what differs from the defaults', async () => {
    const calls = mockServer({
      [`GET ${PARAMS}`]: { data: { saved: {}, updatedAt: null } },
      [`PUT ${PARAMS}`]: { data: { saved: { imgsz: 960, time: 2 }, updatedAt: '2026-01-02T08:00:00.000Z' } },
    });
    renderPage(<ParameterPage />, '/parameter');
    await screen.findByTestId('param-form');

    await type('imgsz', '650');
    expect(await screen.findByText('Must be a multiple of 32')).toBeTruthy();
    await type('time', '0.5');
    expect(await screen.findByText('Must be 0 (no limit) or 1 to 72 hours')).toBeTruthy();
    await type('mosaic', '1.5');
    expect(await screen.findByText('Out of range')).toBeTruthy();
    await click('param-save');
    expect(await screen.findByText('Some values are not valid: see the marked fields.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);

    await type('imgsz', '960');
    await type('time', '2');
    await type('mosaic', '1');
    await waitFor(() => expect(screen.queryByText('Must be a multiple of 32')).toBeNull());
    await click('param-save');
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ params: { imgsz: 960, time: 2 } }));
    expect(await screen.findByText('Parameters saved.')).toBeTruthy();
    await waitFor(() => expect(screen.queryByTestId('param-unsaved')).toBeNull());
    expect(screen.getByTestId('param-saved-at')).toBeTruthy();
  });

  it('offers the user’s own finished versions for pretrained, never a text box, and saves the chosen id', async () => {
    const calls = mockServer({
      [`GET ${PARAMS}`]: { data: { saved: { pretrained: '9' }, updatedAt: null } },
      'GET /api/trainings/pretrained': {
        data: { items: [{ trainingId: 7, modelId: 3, modelName: 'Boards', version: 'v2', task: 'detect', endedAt: '2026-01-02T08:00:00.000Z' }] },
      },
      [`PUT ${PARAMS}`]: { data: { saved: { pretrained: '7' }, updatedAt: '2026-01-02T08:00:00.000Z' } },
    });
    renderPage(<ParameterPage />, '/parameter');
    await screen.findByTestId('param-form');
    const select = screen.getByTestId('param-pretrained');
    expect(select.querySelector('input[type="text"]:not([role="combobox"])')).toBeNull();
    // A saved id that is no longer offered stays visible as such.
    await waitFor(() => expect(field('pretrained').textContent).toContain('Version #9 (no longer available)'));
    fireEvent.mouseDown(select.querySelector('.ant-select-selector') ?? select);
    expect(await screen.findByTitle('None (train from scratch)')).toBeTruthy();
    fireEvent.click(await screen.findByTitle('Boards · v2'));
    await waitFor(() => expect(field('pretrained').textContent).toContain('Boards · v2'));
    await click('param-save');
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ params: { pretrained: '7' } }));
  });

  it('says "parameter save failed" and puts the server problems on their fields', async () => {
    mockServer({
      [`GET ${PARAMS}`]: { data: { saved: {}, updatedAt: null } },
      [`PUT ${PARAMS}`]: {
        code: 20001,
        status: 400,
        message: 'Image size: must be a multiple of 32',
        data: { problems: [{ field: 'imgsz', reason: 'multipleOf32', message: 'Image size: must be a multiple of 32 (server)' }] },
      },
    });
    renderPage(<ParameterPage />, '/parameter');
    await screen.findByTestId('param-form');
    await type('epochs', '50');
    await click('param-save');
    expect(await screen.findByText('Parameter save failed.')).toBeTruthy();
    expect(await screen.findByText('Image size: must be a multiple of 32 (server)')).toBeTruthy();
  });

  it('resets to the defaults after a confirmation, and says "resetting parameters error" when that fails', async () => {
    const routes: Record<string, { data?: unknown; code?: number; status?: number; message?: string }> = {
      [`GET ${PARAMS}`]: { data: { saved: { epochs: 30 }, updatedAt: null } },
      [`DELETE ${PARAMS}`]: { code: 40007, status: 500, message: 'Resetting parameters error.' },
    };
    const calls = mockServer(routes);
    renderPage(<ParameterPage />, '/parameter');
    await screen.findByTestId('param-form');
    expect(input('epochs').value).toBe('30');

    await click('param-reset');
    await click('param-reset-confirm');
    expect(await screen.findByText('Resetting parameters error.')).toBeTruthy();
    expect(input('epochs').value).toBe('30');

    routes[`DELETE ${PARAMS}`] = { data: { saved: {}, updatedAt: null } };
    await click('param-reset');
    await click('param-reset-confirm');
    await waitFor(() => expect(input('epochs').value).toBe('100'));
    expect(calls.filter((c) => c.method === 'DELETE')).toHaveLength(2);
    expect(screen.getByTestId('param-changed-count').getAttribute('data-count')).toBe('0');
  });

  it('shows the load failure with a retry, and asks for a model when none is open', async () => {
    mockServer({ [`GET ${PARAMS}`]: { code: 20004, status: 404, message: 'Not found' } });
    renderPage(<ParameterPage />, '/parameter');
    expect(await screen.findByTestId('param-error')).toBeTruthy();
    expect(screen.getByTestId('param-error-retry')).toBeTruthy();
    cleanup();
    useProject.getState().setProject(null);
    renderPage(<ParameterPage />, '/parameter');
    expect(screen.getByTestId('training-no-project')).toBeTruthy();
  });
});
