import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, Route, Routes } from 'react-router-dom';
import { envelope, fakeFetch } from '@/pages/testing/test/fixtures';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import { GuardOutlet } from './GuardOutlet';

/**
 * Issue 31: a test that ended while no page of it was open left the stored status at 'testing', and "Test
 * images" was sent to /test. The lock's redirect now asks the server first.
 */
function model(projectStatus: string) {
  return {
    id: 5, name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus, trainId: 11, trainingCount: 1,
    note: '', trainingStatus: 'succeeded', testStatus: 'tested', totalImages: 4, labeledImages: 4, createdAt: '2026-01-01T00:00:00.000Z',
  };
}

function renderAt(path: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route element={<GuardOutlet />}>
            <Route path="/testImage/detection" element={<div data-testid="at">testImage</div>} />
            <Route path="/test/detection" element={<div data-testid="at">test</div>} />
          </Route>
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  useSession.setState({ token: 'tok', user: null });
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'testing', hasTraining: true });
});
afterEach(() => {
  cleanup();
  useProject.getState().setProject(null);
  useSession.setState({ token: null, user: null });
});

describe('the project lock', () => {
  it('opens Test images once the server says the test has ended, and keeps the fresh status', async () => {
    const calls = fakeFetch((key) => {
      if (key === 'GET /api/config') return envelope({ deployment: 'cloud' });
      if (key === 'GET /api/models/5') return envelope(model('no'));
      return undefined;
    });
    renderAt('/testImage/detection');
    await waitFor(() => expect(screen.getByTestId('at').textContent).toBe('testImage'));
    expect(useProject.getState().project?.projectStatus).toBe('no');
    expect(calls.filter((c) => c.url === '/api/models/5')).toHaveLength(1);
  });

  it('still sends the user to /test while the server says the test runs', async () => {
    fakeFetch((key) => {
      if (key === 'GET /api/config') return envelope({ deployment: 'cloud' });
      if (key === 'GET /api/models/5') return envelope(model('testing'));
      return undefined;
    });
    renderAt('/testImage/detection');
    await waitFor(() => expect(screen.getByTestId('at').textContent).toBe('test'));
    expect(useProject.getState().project?.projectStatus).toBe('testing');
  });

  it('keeps the stored lock when the server cannot be asked', async () => {
    fakeFetch(() => undefined);
    renderAt('/testImage/detection');
    await waitFor(() => expect(screen.getByTestId('at').textContent).toBe('test'));
  });
});
