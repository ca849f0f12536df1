import { describe, expect, it } from 'vitest';
import type { AnnotationImportData } from '@loupe/contracts';
import { annotationFormatsFor, IMAGE_ACCEPT, IMAGE_RULES, modesFor } from './modes';
import { checkFile } from './precheck';
import { csvCell, importState, importTotals, reportCsv, reportFileName, type CsvHeadings } from './importReport';

const HEADINGS: CsvHeadings = {
  file: 'File',
  format: 'Format',
  taken: 'Taken',
  skipped: 'Skipped',
  converted: 'Converted',
  kind: 'Kind',
  reason: 'Reason',
  count: 'Count',
  message: 'Message',
  kinds: { skipped: 'skipped', converted: 'converted', refused: 'refused' },
};

/** An X-AnyLabeling ZIP of two files: one clean, one with a point and two polylines left out, a circle converted. */
const IMPORT: AnnotationImportData = {
  format: 'labelme',
  imagesMatched: 2,
  imagesAdded: 1,
  annotations: 7,
  skipped: 3,
  labelsCreated: ['dent'],
  results: [
    { name: 'ok.json', status: 'accepted' },
    { name: 'lost/c.json', status: 'refused', code: 30040, message: 'No uploaded image matches "c.jpg".' },
  ],
  report: [
    { file: 'a.json', format: 'labelme', taken: 4, skipped: [], converted: [] },
    {
      file: 'b, "final".json',
      format: 'labelme',
      taken: 3,
      skipped: [
        { reason: 'point', count: 1, message: '1 point shape: points are not a shape Loupe trains on' },
        { reason: 'line', count: 2, message: '2 lines (line, polyline or linestrip): lines are not a shape Loupe trains on' },
      ],
      converted: [{ reason: 'circleToPolygon', count: 1, message: '1 circle or ellipse stored as a polygon' }],
    },
  ],
};

/** RFC 4180 reading, enough to check what a spreadsheet program gets back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      row.push(cell);
      cell = '';
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else {
      cell += c;
    }
  }
  return rows;
}

describe('import report', () => {
  it('sums the figures of the summary line from the answer', () => {
    expect(importTotals(IMPORT)).toEqual({ annotations: 7, files: 2, images: 3, imagesAdded: 1, skipped: 3, converted: 1, refused: 1 });
  });

  it('never calls an import that left shapes out a success', () => {
    const clean = { ...IMPORT, skipped: 0, results: [], report: [IMPORT.report[0]!] };
    expect(importState(importTotals(clean))).toBe('success');
    expect(importState(importTotals(IMPORT))).toBe('warning');
    expect(importState(importTotals({ ...clean, results: IMPORT.results }))).toBe('warning');
    expect(importState(importTotals({ ...clean, annotations: 0, imagesAdded: 0 }))).toBe('error');
    // A classification ZIP may only add images (unclassified): something arrived.
    expect(importState(importTotals({ ...clean, annotations: 0, imagesAdded: 4 }))).toBe('success');
  });

  it('counts the skipped shapes from the files when an older answer has no total', () => {
    const old = { ...IMPORT } as Partial<AnnotationImportData>;
    delete old.skipped;
    delete old.imagesAdded;
    expect(importTotals(old as AnnotationImportData)).toMatchObject({ skipped: 3, imagesAdded: 0 });
  });

  it('writes every file row and every reason sentence into the CSV, escaped', () => {
    const csv = reportCsv(IMPORT, HEADINGS);
    expect(csv.startsWith('\uFEFFFile,Format,Taken,')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(csv.slice(1));
    expect(rows).toEqual([
      ['File', 'Format', 'Taken', 'Skipped', 'Converted', 'Kind', 'Reason', 'Count', 'Message'],
      ['a.json', 'labelme', '4', '0', '0', '', '', '', ''],
      ['b, "final".json', 'labelme', '3', '3', '1', '', '', '', ''],
      ['b, "final".json', 'labelme', '', '', '', 'skipped', 'point', '1', '1 point shape: points are not a shape Loupe trains on'],
      ['b, "final".json', 'labelme', '', '', '', 'skipped', 'line', '2', '2 lines (line, polyline or linestrip): lines are not a shape Loupe trains on'],
      ['b, "final".json', 'labelme', '', '', '', 'converted', 'circleToPolygon', '1', '1 circle or ellipse stored as a polygon'],
      ['lost/c.json', '', '', '', '', 'refused', '30040', '', 'No uploaded image matches "c.jpg".'],
    ]);
  });

  it('keeps spreadsheet formulas out of the cells that come from the ZIP', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1.json')).toBe("'+1.json");
    expect(csvCell('@sum')).toBe("'@sum");
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell('Schrauben/Öse.json')).toBe('Schrauben/Öse.json');
  });

  it('names the download after the model, without characters file systems refuse', () => {
    expect(reportFileName('Gears')).toBe('Gears-import-report.csv');
    expect(reportFileName('a/b:c*?\u0001')).toBe('a_b_c__-import-report.csv');
    expect(reportFileName(undefined)).toBe('loupe-import-report.csv');
    expect(reportFileName('  ')).toBe('loupe-import-report.csv');
  });
});

describe('wizard modes and formats', () => {
  it('offers the labelled ZIP for every model type', () => {
    for (const type of ['DETECTION', 'SEGMENTATION', 'MEASURE', 'OCR', 'classification'] as const) expect(modesFor(type)).toContain('labelledZip');
    expect(modesFor('classification')).toEqual(['unclassified', 'folders', 'labelledZip']);
    expect(modesFor('DETECTION')).toEqual(['images', 'imagesWithAnnotations', 'labelledZip']);
  });

  it('lists the formats each model type reads: DOTA for detection only, classes for classification', () => {
    expect(annotationFormatsFor('DETECTION')).toEqual(['coco', 'voc', 'labelme', 'yolo', 'dota', 'cvat', 'labelstudio', 'datumaro']);
    for (const type of ['SEGMENTATION', 'MEASURE', 'OCR'] as const) expect(annotationFormatsFor(type)).toEqual(['coco', 'voc', 'labelme', 'yolo', 'cvat', 'labelstudio', 'datumaro']);
    expect(annotationFormatsFor('classification')).toEqual(['folders', 'list', 'cvatTags']);
  });

  it('accepts WebP wherever JPEG and PNG are', () => {
    expect(IMAGE_ACCEPT.split(',')).toContain('.webp');
    expect(checkFile(new File([new Uint8Array(8)], 'part.WEBP'), IMAGE_RULES)).toBeNull();
    expect(checkFile(new File([new Uint8Array(8)], 'part.gif'), IMAGE_RULES)).toBe('type');
  });
});
