import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import type { SuggestedConfidences, VersionListData } from '@loupe/contracts';
import { click, renderPage } from '@/pages/auth/test/harness';
import { training } from '@/pages/download/test/fixtures';
import { useProject } from '@/stores/project';
import { useSession } from '@/stores/session';
import TestPage from '../TestPage';
import { envelope, fakeFetch, testRun } from './fixtures';

const suggested: SuggestedConfidences = {
  f1: { overall: 0.42, f1: 0.87, perClass: { dent: 0.4 } },
  recall: { target: 0.95, conf: 0.18, classes: ['dent'] },
  testRunId: 9,
};

beforeEach(() => {
  useSession.setState({ token: 'tok' });
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  useProject.getState().setProject(null);
  useSession.setState({ token: null, user: null });
});

/** The model's API: one version (with or without the agent's suggestion) and one finished run. */
function serve(withSuggestion: boolean) {
  const version = { ...training(), note: '', isDefault: false, inUse: true, suggested: withSuggestion ? suggested : null };
  const versions: VersionListData = { items: [version], defaultTrainingId: null, effectiveTrainingId: version.id };
  fakeFetch((key) => {
    if (key === 'GET /api/models/5/tests') return envelope({ items: [testRun()], total: 1 });
    if (key === 'GET /api/models/5/tests/9') return envelope(testRun());
    if (key === 'GET /api/models/5/trainings') return envelope({ items: [training()], total: 1 });
    if (key === 'GET /api/models/5/versions') return envelope(versions);
    if (key === 'GET /api/models/5/labels') return envelope([]);
    if (key === 'GET /api/models/5/tests/9/images') return envelope({ items: [], total: 0 });
    return undefined;
  });
}

describe('/test suggested confidence (issue 35)', () => {
  it("shows the chosen version's suggestion beside the confidence and puts it into the field", async () => {
    serve(true);
    renderPage(<TestPage />, '/test/detection');
    const advice = await screen.findByTestId('suggested-conf');
    expect(advice.textContent).toContain('Suggested confidence: 0.42 (best F1 0.87) · NG recall 95 % at 0.18');
    expect(screen.getByTestId('suggested-conf-statistics').getAttribute('href')).toBe('/statistics?id=5&tab=test&testId=9');
    expect((screen.getByTestId('test-conf') as HTMLInputElement).value).toBe('0.25');
    await click('suggested-conf-use');
    await waitFor(() => expect((screen.getByTestId('test-conf') as HTMLInputElement).value).toBe('0.42'));
    // The finished run links to its statistics.
    expect(screen.getByTestId('test-statistics-link').getAttribute('href')).toBe('/statistics?id=5&tab=test&testId=9');
  });

  it('shows nothing for a version without one', async () => {
    serve(false);
    renderPage(<TestPage />, '/test/detection');
    await screen.findByTestId('test-statistics-link');
    expect(screen.queryByTestId('suggested-conf')).toBeNull();
  });
});
