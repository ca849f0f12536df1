import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import { AnnotationFormats, ExportFormats, LANGUAGES, type ModelType } from '@loupe/contracts';
import { click, renderPage } from '@/pages/auth/test/harness';
import i18n from '@/i18n';
import { useProject } from '@/stores/project';
import DownloadImage from '../DownloadImage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  useProject.getState().setProject(null);
});

function open(type: ModelType) {
  useProject.getState().setProject({ id: '5', name: 'Gears', code: 'M-5', type, sidebarType: 8, projectStatus: 'no' });
  renderPage(<DownloadImage />, '/download/downloadImage');
}

const offered = () => screen.queryAllByTestId(/^export-format-/).map((e) => e.getAttribute('data-testid')!.replace('export-format-', ''));

describe('dataset export formats', () => {
  it('offers each model type the formats that hold its shapes', () => {
    open('DETECTION');
    expect(offered()).toEqual(['coco', 'voc', 'yolo', 'labelme', 'dota', 'cvat', 'labelstudio', 'datumaro']);
    cleanup();
    open('OCR');
    expect(offered()).toEqual(['coco', 'voc', 'labelme', 'cvat', 'labelstudio', 'datumaro']);
    cleanup();
    open('SEGMENTATION');
    expect(offered()).toEqual(['coco', 'voc', 'yolo', 'labelme', 'cvat', 'labelstudio', 'datumaro']);
    // Ant Design puts the test id on the radio's input itself.
    const labelme = screen.getByTestId('export-format-labelme');
    expect((labelme.tagName === 'INPUT' ? labelme : labelme.querySelector('input')!) as HTMLInputElement).toHaveProperty('checked', true);
  });

  it('asks for the chosen new format', async () => {
    const fetchMock = vi.fn(async (_url: string) => new Response('PK', { headers: { 'content-type': 'application/zip' } }));
    vi.stubGlobal('fetch', fetchMock);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    open('DETECTION');
    await click('export-format-dota');
    await click('export-download');
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    expect(fetchMock.mock.calls[0]![0]).toBe('/api/models/5/download/images?format=dota');
  });

  it('tells classification users they get class folders, with no format to choose', () => {
    open('classification');
    expect(offered()).toEqual([]);
    expect(screen.getByTestId('export-class-folders').textContent).toContain('one folder per class');
    expect(screen.getByTestId('export-download')).toBeTruthy();
  });

  it('names every format, and describes every export format, in all four languages', () => {
    for (const lng of LANGUAGES) {
      const t = i18n.getFixedT(lng, 'gallery');
      for (const f of AnnotationFormats) expect(i18n.exists(`gallery:formats.${f}`, { lng }), `${lng} formats.${f}`).toBe(true);
      for (const f of ExportFormats) expect(t(`export.formatText.${f}`), `${lng} ${f}`).not.toBe(`export.formatText.${f}`);
    }
  });
});
