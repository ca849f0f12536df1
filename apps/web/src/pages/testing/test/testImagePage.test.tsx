import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { ImageData, UploadData } from '@loupe/contracts';
import { click, location, renderPage } from '@/pages/auth/test/harness';
import { FakeXhr } from '@/pages/gallery/test/fakeXhr';
import { imageData } from '@/pages/gallery/test/imageFixture';
import { useProject } from '@/stores/project';
import { chosenImages } from '../api/testSelection';
import TestImagePage from '../TestImagePage';
import { envelope, fakeFetch } from './fixtures';

beforeEach(() => {
  FakeXhr.install();
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(260);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(600);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

const image = (id: number, patch: Partial<ImageData> = {}) => imageData(5, id, { split: 'test', ...patch });

function serve(items: () => ImageData[]) {
  return fakeFetch((key, url) => {
    if (key === 'GET /api/models/5/images') {
      const filter = url.searchParams.get('filter');
      const list = items().filter((i) => !filter || (filter === 'untested' ? i.testState === 'untested' : i.testState === 'tested'));
      return envelope({ items: list, total: list.length, nextAfter: null });
    }
    if (key === 'POST /api/models/5/images/split') return envelope({ changed: 1 });
    return undefined;
  });
}

describe('/testImage', () => {
  it('lists the test split with each image\'s test state, and sends a selection to /test', async () => {
    const calls = serve(() => [image(3, { testState: 'tested', testResultCount: 2 }), image(2, { testState: 'tested', testResultCount: 0 }), image(1)]);
    renderPage(<TestImagePage />, '/testImage/detection');
    const tested = await screen.findByTestId('test-image-3');
    expect(tested.dataset).toMatchObject({ testState: 'withResults', results: '2' });
    expect(screen.getByTestId('test-image-2').dataset.testState).toBe('noResults');
    expect(screen.getByTestId('test-image-1').dataset.testState).toBe('untested');
    expect(calls.find((c) => c.url.startsWith('/api/models/5/images?'))?.url).toContain('split=test');
    await click('test-images-filter-untested');
    await waitFor(() => expect(screen.queryByTestId('test-image-3')).toBeNull());
    expect(calls.some((c) => c.url.includes('filter=untested'))).toBe(true);
    await click('test-image-select-1');
    expect(screen.getByTestId('test-images-selected').textContent).toContain('1');
    await click('test-images-run');
    expect(await location()).toBe('/test/detection');
    expect(chosenImages('5')).toEqual([1]);
  });

  it('says the split is empty', async () => {
    serve(() => []);
    renderPage(<TestImagePage />, '/testImage/detection');
    expect(await screen.findByTestId('test-images-empty')).toBeTruthy();
  });

  it('uploads images for testing into the test split and tests them', async () => {
    let listed: ImageData[] = [];
    const calls = serve(() => listed);
    renderPage(<TestImagePage />, '/testImage/detection');
    await screen.findByTestId('test-images-empty');
    await click('test-images-upload');
    fireEvent.change(await screen.findByTestId('upload-file-input'), { target: { files: [new File([new Uint8Array(10)], 'a.png'), new File([new Uint8Array(10)], 'b.png')] } });
    await click('upload-start');
    const xhr = FakeXhr.all[0]!;
    expect(xhr.url).toBe('/api/models/5/images/upload');
    const answer: UploadData = {
      accepted: 1,
      refused: 1,
      results: [
        { name: 'a.png', status: 'accepted', imageId: 41 },
        { name: 'b.png', status: 'refused', code: 30014, message: 'This image is already in the model.' },
      ],
    };
    listed = [image(41)];
    await act(async () => xhr.respond(answer));
    await waitFor(() => expect(calls.find((c) => c.url.endsWith('/images/split'))?.body).toEqual({ ids: [41], split: 'test' }));
    await waitFor(() => expect((screen.getByTestId('upload-next') as HTMLButtonElement).disabled).toBe(false));
    await click('upload-next');
    expect(screen.getByTestId('upload-summary').textContent).toContain('This image is already in the model.');
    await click('test-upload-run');
    expect(await location()).toBe('/test/detection');
    expect(chosenImages('5')).toEqual([41]);
  });
});
