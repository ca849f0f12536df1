import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { ModelPaths } from '@loupe/contracts';
import { click, location, mockServer, renderPage } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import ModelList from '../ModelList';
import { model } from './fixtures';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
});

const list = { items: [model(), model({ id: 8, projectId: 8, name: 'Labels', code: 'M-8', type: 'OCR', productType: 'ocr' })], total: 2, page: 1, pageSize: 10 };

describe('model list', () => {
  it('asks the server for the newest models first and shows a row per model', async () => {
    const calls = mockServer({ [`GET ${ModelPaths.list}`]: { data: list } });
    renderPage(<ModelList />, '/agentList');
    expect(await screen.findByTestId('model-row-7')).toBeTruthy();
    expect(screen.getByTestId('model-row-8').textContent).toContain('OCR');
    const url = new URL(calls[0]!.url, 'http://x');
    expect(Object.fromEntries(url.searchParams)).toEqual({ page: '1', pageSize: '10', sort: 'created', order: 'desc' });
  });

  it('deletes a model only after confirmation and forgets it when it was the open one', async () => {
    useProject.getState().setProject({ id: '7', name: 'Gears', code: 'M-7', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
    const calls = mockServer({
      [`GET ${ModelPaths.list}`]: { data: list },
      [`DELETE /api/models/7`]: { data: { deleted: 1 } },
    });
    renderPage(<ModelList />, '/agentList');
    await screen.findByTestId('model-row-7');
    await click('model-delete-7');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await click('model-delete-confirm');
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/models/7')).toBe(true));
    await waitFor(() => expect(useProject.getState().project).toBeNull());
  });

  it('opens an OCR model on the gallery with its project data', async () => {
    mockServer({ [`GET ${ModelPaths.list}`]: { data: list } });
    renderPage(<ModelList />, '/agentList');
    await screen.findByTestId('model-row-8');
    await click('model-open-button-8');
    expect(await location()).toBe('/gallery');
    expect(useProject.getState().project).toMatchObject({ id: '8', type: 'OCR', productType: 'ocr' });
  });
});
