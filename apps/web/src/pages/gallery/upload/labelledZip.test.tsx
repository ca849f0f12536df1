import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import type { AnnotationImportData } from '@loupe/contracts';
import { click, renderPage } from '@/pages/auth/test/harness';
import { useProject } from '@/stores/project';
import { FakeXhr } from '../test/fakeXhr';
import { UploadWizard } from './UploadWizard';

const POINT = '1 point shape: points are not a shape Loupe trains on';

/** A Roboflow-style LabelMe export: two images carried in the ZIP, 3 boxes taken, a point left out. */
const WITH_SKIPS: AnnotationImportData = {
  format: 'labelme',
  imagesMatched: 0,
  imagesAdded: 2,
  annotations: 3,
  skipped: 1,
  labelsCreated: ['dent', 'scratch'],
  results: [],
  report: [
    { file: 'train/a.json', format: 'labelme', taken: 2, skipped: [{ reason: 'point', count: 1, message: POINT }], converted: [] },
    { file: 'train/b.json', format: 'labelme', taken: 1, skipped: [], converted: [] },
  ],
};

let saved: Blob[] = [];
let savedAs: string[] = [];

beforeEach(() => {
  FakeXhr.install();
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type: 'DETECTION', sidebarType: 8, projectStatus: 'no' });
  saved = [];
  savedAs = [];
  // jsdom has no object URLs; the Blob handed over is what the browser would save.
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: (b: Blob) => (saved.push(b), 'blob:report'), revokeObjectURL: () => undefined }));
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    savedAs.push(this.download);
  });
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

/** jsdom's Blob has no text(); FileReader reads it as a browser would. */
function readText(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsText(blob);
  });
}

const zipFile = (size = 50) => new File([new Uint8Array(size)], 'export.zip');

async function importZip(answer: AnnotationImportData) {
  fireEvent.change(screen.getByTestId('upload-zip-input'), { target: { files: [zipFile()] } });
  await click('upload-zip-start');
  const xhr = FakeXhr.all.at(-1)!;
  await act(async () => xhr.respond(answer));
  return xhr;
}

describe('labelled dataset ZIP', () => {
  it('goes straight to the ZIP step, sends only the ZIP and reports skipped shapes as a warning', async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-labelledZip');
    expect(screen.queryByTestId('upload-file-input')).toBeNull();
    const hint = screen.getByTestId('upload-zip-step').textContent;
    for (const name of ['COCO JSON', 'Pascal VOC XML (incl. roLabelImg)', 'LabelMe / X-AnyLabeling JSON', 'YOLO (detect, segment, OBB)', 'DOTA', 'CVAT for images XML', 'WebP']) {
      expect(hint).toContain(name);
    }
    const xhr = await importZip(WITH_SKIPS);
    expect(FakeXhr.all).toHaveLength(1);
    expect(xhr.url).toBe('/api/models/5/images/annotations');
    expect(xhr.names('file')).toEqual(['export.zip']);

    const summary = await screen.findByTestId('upload-summary');
    expect(summary.getAttribute('data-status')).toBe('warning');
    expect(summary.textContent).toContain('Imported: 3 annotations, 2 new images');
    const line = screen.getByTestId('upload-summary-annotations');
    expect(line.getAttribute('data-state')).toBe('warning');
    expect(line.textContent).toContain('LabelMe (JSON): 3 annotations on 2 images imported from 2 files; 2 images added, 1 shape skipped.');
    expect(screen.getByTestId('import-report-skipped').textContent).toBe('1 shape was not imported: see why below.');
    expect(line.textContent).toContain('New labels: dent, scratch');

    // The file that lost a shape is open at once, its reason in the warning colour; the clean one has none to open.
    const reasons = screen.getByTestId('import-report-reasons');
    expect(within(reasons).getByText(POINT).className).toContain('ant-typography-warning');
    const rows = screen.getAllByTestId('import-report-row');
    expect(rows.map((r) => r.getAttribute('data-file'))).toEqual(['train/a.json', 'train/b.json']);
    expect(rows[0]!.textContent).toContain('train/a.json');
  });

  it('downloads the report as a CSV named after the model, with every file and reason', async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-labelledZip');
    await importZip(WITH_SKIPS);
    await click('upload-report-download');
    expect(savedAs).toEqual(['Gears-import-report.csv']);
    expect(saved[0]!.type).toBe('text/csv;charset=utf-8');
    const text = await readText(saved[0]!);
    expect(text).toContain('train/a.json,labelme,2,1,0');
    expect(text).toContain(`train/a.json,labelme,,,,Skipped,point,1,${POINT}`);
    expect(text).toContain('train/b.json,labelme,1,0,0');
  });

  it('calls a clean import a success, and one that brought nothing an error', async () => {
    renderPage(<UploadWizard open modelId="5" type="SEGMENTATION" onClose={() => undefined} />);
    await click('upload-mode-labelledZip');
    expect(screen.getByTestId('upload-zip-step').textContent).not.toContain('DOTA');
    await importZip({ ...WITH_SKIPS, skipped: 0, report: [WITH_SKIPS.report[1]!] });
    expect((await screen.findByTestId('upload-summary')).getAttribute('data-status')).toBe('success');
    expect(screen.queryByTestId('import-report-skipped')).toBeNull();
    cleanup();
    renderPage(<UploadWizard open modelId="5" type="SEGMENTATION" onClose={() => undefined} />);
    await click('upload-mode-labelledZip');
    await importZip({ ...WITH_SKIPS, annotations: 0, imagesAdded: 0, imagesMatched: 0, skipped: 1 });
    expect((await screen.findByTestId('upload-summary')).getAttribute('data-status')).toBe('error');
  });

  it('tells classification users about class folders and file lists, and goes back to the modes', async () => {
    renderPage(<UploadWizard open modelId="5" type="classification" onClose={() => undefined} />);
    await click('upload-mode-labelledZip');
    const hint = screen.getByTestId('upload-zip-step').textContent;
    expect(hint).toContain('train/cat/x.jpg');
    expect(hint).toContain('class folders, a CSV or JSON list of file → class, CVAT tags');
    expect(hint).not.toContain('COCO');
    await click('upload-zip-back');
    expect(screen.getByTestId('upload-mode-folders')).toBeTruthy();
    await click('upload-mode-labelledZip');
    expect(screen.getByTestId('upload-zip-start').textContent).toBe('Import ZIP');
    await importZip({
      format: 'folders',
      imagesMatched: 1,
      imagesAdded: 3,
      annotations: 4,
      skipped: 1,
      labelsCreated: ['cat', 'dog'],
      results: [],
      report: [{ file: 'train/', format: 'folders', taken: 4, skipped: [{ reason: 'nested', count: 1, message: '1 image in a folder nested too deep' }], converted: [] }],
    });
    expect(screen.getByTestId('upload-summary-annotations').textContent).toContain('Class folders: 4 images classified from 1 file; 3 images added, 1 left out.');
    expect(screen.getByTestId('import-report-skipped').textContent).toBe('1 image or entry was not imported: see why below.');
    expect(screen.getByTestId('upload-summary').getAttribute('data-status')).toBe('warning');
  });

  it('refuses a ZIP over the upload limit before sending it', async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-labelledZip');
    const big = zipFile();
    Object.defineProperty(big, 'size', { value: 600 * 1024 * 1024 });
    fireEvent.change(screen.getByTestId('upload-zip-input'), { target: { files: [big] } });
    await click('upload-zip-start');
    expect(FakeXhr.all).toHaveLength(0);
    expect(screen.getByTestId('upload-zip-error').textContent).toContain('500 MB');
  });

  it('keeps the images-then-ZIP flow, whose summary also turns to a warning on skipped shapes', async () => {
    renderPage(<UploadWizard open modelId="5" type="DETECTION" onClose={() => undefined} />);
    await click('upload-mode-imagesWithAnnotations');
    fireEvent.change(screen.getByTestId('upload-file-input'), { target: { files: [new File([new Uint8Array(10)], 'a.webp')] } });
    await click('upload-start');
    await act(async () => FakeXhr.all[0]!.respond({ accepted: 1, refused: 0, results: [{ name: 'a.webp', status: 'accepted', imageId: 1 }] }));
    await click('upload-next');
    await importZip(WITH_SKIPS);
    const summary = await screen.findByTestId('upload-summary');
    expect(summary.textContent).toContain('Images uploaded: 1');
    expect(summary.getAttribute('data-status')).toBe('warning');
  });
});
