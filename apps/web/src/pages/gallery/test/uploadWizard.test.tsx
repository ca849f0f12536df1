import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import type { UploadData } from '@loupe/contracts';
import { click, renderPage } from '@/pages/auth/test/harness';
import { UploadWizard } from '../upload/UploadWizard';
import { FakeXhr } from './fakeXhr';

// jsdom lays nothing out; the virtualised file list needs a box to fill.
beforeEach(() => {
  FakeXhr.install();
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(260);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(600);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const file = (name: string, size = 10, path = '') => {
  const f = new File([new Uint8Array(size)], name);
  if (path) Object.defineProperty(f, 'webkitRelativePath', { value: path });
  return f;
};

function pick(testId: string, files: File[]) {
  fireEvent.change(screen.getByTestId(testId), { target: { files } });
}

const accepted = (names: string[]): UploadData => ({
  accepted: names.length,
  refused: 0,
  results: names.map((name, i) => ({ name, status: 'accepted', imageId: i + 1 })),
});

describe('upload wizard', () => {
  it('offers images and images + ZIP for detection, unclassified and folders for classification', async () => {
    const { unmount } = renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    expect(await screen.findByTestId('upload-mode-images')).toBeTruthy();
    expect(screen.getByTestId('upload-mode-imagesWithAnnotations')).toBeTruthy();
    expect(screen.queryByTestId('upload-mode-folders')).toBeNull();
    unmount();
    renderPage(<UploadWizard open modelId="5" type="classification" onClose={() => undefined} />);
    expect(await screen.findByTestId('upload-mode-folders')).toBeTruthy();
    expect(screen.getByTestId('upload-mode-unclassified')).toBeTruthy();
  });

  it("pre-checks, uploads with progress and sums up the server's and the pre-check's refusals", async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-images');
    pick('upload-file-input', [file('a.png', 100), file('b.jpg', 100), file('notes.txt')]);
    expect(screen.getByTestId('upload-start').textContent).toContain('2');
    await click('upload-start');
    const xhr = FakeXhr.all[0]!;
    expect(xhr.url).toBe('/api/models/5/images/upload');
    expect(xhr.names()).toEqual(['a.png', 'b.jpg']);
    expect(xhr.headers.Language).toBe('en');
    act(() => xhr.upload.onprogress?.({ loaded: 150 }));
    expect(screen.getByTestId('upload-file-0').getAttribute('data-status')).toBe('uploading');
    expect(screen.getByTestId('upload-progress-total').getAttribute('aria-valuenow')).toBe('75');
    await act(async () =>
      xhr.respond({
        accepted: 1,
        refused: 1,
        results: [
          { name: 'a.png', status: 'accepted', imageId: 1 },
          { name: 'b.jpg', status: 'refused', code: 30015, message: 'The aspect ratio must be under 6:1.' },
        ],
      }),
    );
    await waitFor(() => expect(screen.getByTestId('upload-next').hasAttribute('disabled')).toBe(false));
    await click('upload-next');
    const rows = screen.getAllByTestId('upload-summary-row').map((r) => r.textContent);
    expect(rows).toEqual([
      expect.stringContaining('Only JPG, JPEG, PNG, WebP, BMP, MPO and TIFF images can be uploaded.'),
      expect.stringContaining('The aspect ratio must be under 6:1.'),
    ]);
    expect(screen.getByTestId('upload-summary').textContent).toContain('Images uploaded: 1');
  });

  it('retries only the files whose request failed', async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-images');
    pick('upload-file-input', [file('a.png')]);
    await click('upload-start');
    await act(async () => FakeXhr.all[0]!.fail());
    await click('upload-retry');
    expect(FakeXhr.all).toHaveLength(2);
    expect(FakeXhr.all[1]!.names()).toEqual(['a.png']);
    await act(async () => FakeXhr.all[1]!.respond(accepted(['a.png'])));
    await waitFor(() => expect(screen.queryByTestId('upload-retry')).toBeNull());
    expect(screen.getByTestId('upload-file-0').getAttribute('data-status')).toBe('done');
  });

  it('sends class folders as <label>/<file> and refuses nested and loose files', async () => {
    renderPage(<UploadWizard open modelId="5" type="classification" onClose={() => undefined} />);
    await click('upload-mode-folders');
    await click('upload-folder-several');
    pick('upload-folder-input', [
      file('1.png', 5, 'set/ok/1.png'),
      file('2.png', 5, 'set/ng/2.png'),
      file('3.png', 5, 'set/ng/deep/3.png'),
      file('4.png', 5, 'set/4.png'),
    ]);
    expect(screen.getByTestId('upload-selection').textContent).toContain('ng, ok');
    expect(screen.getByTestId('upload-precheck-refused').textContent).toContain('2');
    await click('upload-start');
    expect(FakeXhr.all[0]!.url).toBe('/api/models/5/images/folders');
    expect(FakeXhr.all[0]!.names()).toEqual(['ok/1.png', 'ng/2.png']);
  });

  it('sends the annotation ZIP after the images and reports what it imported', async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-imagesWithAnnotations');
    pick('upload-file-input', [file('a.png')]);
    await click('upload-start');
    await act(async () => FakeXhr.all[0]!.respond(accepted(['a.png'])));
    await waitFor(() => expect(screen.getByTestId('upload-next').hasAttribute('disabled')).toBe(false));
    await click('upload-next');
    pick('upload-zip-input', [file('ann.zip', 50)]);
    await click('upload-zip-start');
    const zip = FakeXhr.all[1]!;
    expect(zip.url).toBe('/api/models/5/images/annotations');
    expect(zip.names('file')).toEqual(['ann.zip']);
    await act(async () =>
      zip.respond({
        format: 'coco',
        imagesMatched: 1,
        annotations: 2,
        labelsCreated: ['dent'],
        results: [{ name: 'b.png', status: 'refused', message: 'No uploaded image matches "b.png".' }],
      }),
    );
    expect((await screen.findByTestId('upload-summary-annotations')).textContent).toContain('2 annotations on 1 image imported');
    expect(screen.getByTestId('upload-summary').textContent).toContain('No uploaded image matches "b.png".');
  });

  it('stops the requests in flight when the dialog closes mid-upload', async () => {
    const aborted = vi.spyOn(FakeXhr.prototype, 'abort');
    const { unmount } = renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-images');
    pick('upload-file-input', ['a', 'b', 'c', 'd', 'e'].map((n) => file(`${n}.png`)));
    await click('upload-start');
    expect(FakeXhr.all.map((x) => x.names().length)).toEqual([4, 1]);
    unmount();
    expect(aborted).toHaveBeenCalledTimes(2);
  });
});
