import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, render, screen } from '@testing-library/react';
import type { AnnotationImportData, Language } from '@loupe/contracts';
import { setLanguage } from '@/i18n';
// The harness gives jsdom the matchMedia that Ant Design's table asks for.
import '@/pages/auth/test/harness';
import { ImportReport } from './ImportReport';

/**
 * The import summary says each of its counts grammatically (issue 33: a user reads it on every import): "1 image
 * added, 1 shape skipped" in English, dative plurals in German, Russian one/few/many by the last digits.
 */
function answer(n: { annotations: number; images: number; files: number; added: number; skipped: number }, format: AnnotationImportData['format'] = 'labelme'): AnnotationImportData {
  return {
    format,
    imagesMatched: n.images - n.added,
    imagesAdded: n.added,
    annotations: n.annotations,
    skipped: n.skipped,
    labelsCreated: [],
    results: [],
    report: Array.from({ length: n.files }, (_, i) => ({ file: `${i}.json`, format, taken: 0, skipped: [], converted: [] })),
  };
}

async function shown(lang: Language, data: AnnotationImportData) {
  await act(() => setLanguage(lang));
  render(<ImportReport data={data} />);
  return { summary: screen.getByTestId('upload-summary-annotations').querySelector('.ant-alert-title')!.textContent, skipped: screen.queryByTestId('import-report-skipped')?.textContent };
}

const ones = { annotations: 1, images: 1, files: 1, added: 1, skipped: 1 };
const twos = { annotations: 2, images: 2, files: 2, added: 2, skipped: 2 };

afterEach(async () => {
  cleanup();
  await act(() => setLanguage('en'));
});

describe('import summary plurals', () => {
  it('English: singular for 1, plural otherwise', async () => {
    expect(await shown('en', answer(ones))).toEqual({
      summary: 'LabelMe (JSON): 1 annotation on 1 image imported from 1 file; 1 image added, 1 shape skipped.',
      skipped: '1 shape was not imported: see why below.',
    });
    cleanup();
    expect((await shown('en', answer(twos))).summary).toBe('LabelMe (JSON): 2 annotations on 2 images imported from 2 files; 2 images added, 2 shapes skipped.');
    cleanup();
    expect(await shown('en', answer(ones, 'folders'))).toEqual({
      summary: 'Class folders: 1 image classified from 1 file; 1 image added, 1 left out.',
      skipped: '1 image or entry was not imported: see why below.',
    });
  });

  it('German: singular for 1, the dative plural after "auf"', async () => {
    expect(await shown('de', answer(ones))).toEqual({
      summary: 'LabelMe (JSON): 1 Annotation auf 1 Bild importiert aus 1 Datei; 1 Bild hinzugefügt, 1 Form ausgelassen.',
      skipped: '1 Form wurde nicht importiert: die Gründe stehen unten.',
    });
    cleanup();
    expect((await shown('de', answer(twos))).summary).toBe('LabelMe (JSON): 2 Annotationen auf 2 Bildern importiert aus 2 Dateien; 2 Bilder hinzugefügt, 2 Formen ausgelassen.');
  });

  it('Russian: one, few and many forms by the last digits', async () => {
    expect(await shown('ru', answer({ annotations: 21, images: 2, files: 5, added: 1, skipped: 22 }))).toEqual({
      summary: 'LabelMe (JSON): импортирован 21 объект разметки на 2 изображениях из 5 файлов; добавлено 1 изображение, пропущено 22 фигуры.',
      skipped: 'Не импортированы 22 фигуры. Причины — ниже.',
    });
    cleanup();
    expect(await shown('ru', answer({ annotations: 5, images: 21, files: 1, added: 11, skipped: 1 }))).toEqual({
      summary: 'LabelMe (JSON): импортировано 5 объектов разметки на 21 изображении из 1 файла; добавлено 11 изображений, пропущена 1 фигура.',
      skipped: 'Не импортирована 1 фигура. Причины — ниже.',
    });
  });

  it('Chinese: one form for every count', async () => {
    expect((await shown('zh', answer(ones))).summary).toBe('LabelMe（JSON）：已从 1 个文件导入 1 张图像上的 1 条标注；新增 1 张图像，跳过 1 个形状。');
  });
});
