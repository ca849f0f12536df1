import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { Errors, ModelPaths, type ModelListData } from '@loupe/contracts';
import { click, location, mockServer, renderPage, type, type Call } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import ModelList from '../ModelList';
import { model } from './fixtures';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
});

const empty: ModelListData = { items: [], total: 0, page: 1, pageSize: 10 };


const posts = (calls: Call[]) => calls.filter((c) => c.method === 'POST');

describe('create model dialog', () => {
  it('requires a type and a name before anything is sent', async () => {
    const calls = mockServer({ [`GET ${ModelPaths.list}`]: { data: empty } });
    renderPage(<ModelList />, '/agentList?create=1');
    await click('create-model-submit');
    expect(await screen.findByText('Choose a model type.')).toBeTruthy();
    expect(await screen.findByText('Model name is required.')).toBeTruthy();
    type('create-model-name', '   ');
    await click('create-model-submit');
    expect(await screen.findByText('Model name is required.')).toBeTruthy();
    expect(posts(calls)).toHaveLength(0);
  });

  it('leads to the full-page form that explains each model type, closing the dialog', async () => {
    mockServer({ [`GET ${ModelPaths.list}`]: { data: empty } });
    renderPage(<ModelList />, '/agentList?create=1');
    await click('create-model-about-types');
    await waitFor(async () => expect(await location()).toBe('/creatModel2'));
  });

  it('refuses a name or note over 100 characters and accepts exactly 100', async () => {
    const calls = mockServer({ [`GET ${ModelPaths.list}`]: { data: empty } });
    renderPage(<ModelList />, '/agentList?create=1');
    await click('model-type-OCR');
    type('create-model-name', 'n'.repeat(101));
    type('create-model-note', 'x'.repeat(101));
    await click('create-model-submit');
    expect(await screen.findByText('Model name must be at most 100 characters.')).toBeTruthy();
    expect(await screen.findByText('Note must be at most 100 characters.')).toBeTruthy();
    type('create-model-name', 'n'.repeat(100));
    type('create-model-note', 'x'.repeat(100));
    // each field re-validates on its own schedule: wait for both messages to go
    await waitFor(() => {
      expect(screen.queryByText('Model name must be at most 100 characters.')).toBeNull();
      expect(screen.queryByText('Note must be at most 100 characters.')).toBeNull();
    });
    expect(posts(calls)).toHaveLength(0);
  });

  it("shows the server's duplicate-name refusal on the name field", async () => {
    const refusal = 'A model with this name already exists.';
    mockServer({
      [`GET ${ModelPaths.list}`]: { data: empty },
      [`POST ${ModelPaths.list}`]: { code: Errors.modelNameExists.code, message: refusal, status: 409 },
    });
    renderPage(<ModelList />, '/agentList?create=1');
    await click('model-type-DETECTION');
    type('create-model-name', 'Gears');
    await click('create-model-submit');
    const text = await screen.findByText(refusal);
    expect(text.closest('.ant-form-item')?.querySelector('[data-testid="create-model-name"]')).toBeTruthy();
  });

  it('creates the model with trimmed values, opens it and lands on its first page', async () => {
    const calls = mockServer({
      [`GET ${ModelPaths.list}`]: { data: empty },
      [`POST ${ModelPaths.list}`]: { data: model({ name: 'Gears', note: 'line 3' }) },
    });
    renderPage(<ModelList />, '/agentList?create=1');
    await click('model-type-DETECTION');
    type('create-model-name', '  Gears ');
    type('create-model-note', ' line 3 ');
    await click('create-model-submit');
    expect(await location()).toBe('/gallery');
    expect(posts(calls)[0]?.body).toEqual({ type: 'DETECTION', name: 'Gears', note: 'line 3' });
    expect(useProject.getState().project).toMatchObject({ id: '7', code: 'M-7', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
    expect(JSON.parse(sessionStorage.getItem('data') ?? '{}')).toMatchObject({ id: '7', name: 'Gears' });
  });

  it('opens a synthetic model on its reference step', async () => {
    mockServer({
      [`GET ${ModelPaths.list}`]: { data: empty },
      [`POST ${ModelPaths.list}`]: { data: model({ type: 'FPG', sidebarType: 2, productType: 'fpg' }) },
    });
    renderPage(<ModelList />, '/agentList?create=1');
    await click('model-type-FPG');
    type('create-model-name', 'Synth');
    await click('create-model-submit');
    expect(await location()).toBe('/mark');
    expect(useProject.getState().project?.sidebarType).toBe(2);
  });
});
