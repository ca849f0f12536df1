import type { AnnotationImportData, ImportFileReport } from '@loupe/contracts';

/**
 * The annotation import's report (issue 33, no silent loss): the figures of its summary line and the CSV the
 * wizard offers for download. Pure, so the wording of the page and of the file come from the same counts.
 */

export interface ImportTotals {
  annotations: number;
  /** Annotation files that gave or refused shapes. */
  files: number;
  /** Images the ZIP's annotations went to: gallery images it matched plus the images it carried. */
  images: number;
  imagesAdded: number;
  skipped: number;
  converted: number;
  /** Entries refused as a whole (no matching image, unreadable file…). */
  refused: number;
}

const sum = (counts: { count: number }[]) => counts.reduce((n, c) => n + c.count, 0);

/** The report's rows; an older server answered without them. */
export function reportOf(data: AnnotationImportData): ImportFileReport[] {
  return data.report ?? [];
}

export function importTotals(data: AnnotationImportData): ImportTotals {
  const report = reportOf(data);
  return {
    annotations: data.annotations,
    files: report.length,
    // imagesMatched counts the gallery's images only; the ZIP's own images are labelled as they are added.
    images: data.imagesMatched + (data.imagesAdded ?? 0),
    imagesAdded: data.imagesAdded ?? 0,
    // The server's own total, else the files' (they agree; the file rows are what the table shows).
    skipped: data.skipped ?? report.reduce((n, f) => n + sum(f.skipped), 0),
    converted: report.reduce((n, f) => n + sum(f.converted), 0),
    refused: data.results.filter((r) => r.status === 'refused').length,
  };
}

/** How the import should look: anything left out is a warning, never a plain success. */
export function importState(totals: ImportTotals): 'success' | 'warning' | 'error' {
  if (totals.annotations === 0 && totals.imagesAdded === 0) return 'error';
  return totals.skipped > 0 || totals.refused > 0 ? 'warning' : 'success';
}

/**
 * One CSV cell: quoted when it holds a separator, quote or line break. A cell that a spreadsheet would run as
 * a formula (=, +, -, @, tab, CR at its start: file and label names come from the user's ZIP) is prefixed
 * with an apostrophe, as OWASP advises; plain numbers stay numbers.
 */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Column titles, in the user's language. */
export interface CsvHeadings {
  file: string;
  format: string;
  taken: string;
  skipped: string;
  converted: string;
  kind: string;
  reason: string;
  count: string;
  message: string;
  /** The words for the `kind` column. */
  kinds: { skipped: string; converted: string; refused: string };
}

/**
 * The report as CSV: per annotation file one row with its counts, then one row per reason (skipped or
 * converted) with its count and sentence; then the entries refused as a whole. A BOM first, so that
 * spreadsheet programs read the (possibly non-ASCII) names as UTF-8; CRLF line ends as RFC 4180 has them.
 */
export function reportCsv(data: AnnotationImportData, h: CsvHeadings): string {
  const rows: (string | number)[][] = [[h.file, h.format, h.taken, h.skipped, h.converted, h.kind, h.reason, h.count, h.message]];
  for (const f of reportOf(data)) {
    rows.push([f.file, f.format, f.taken, sum(f.skipped), sum(f.converted), '', '', '', '']);
    for (const kind of ['skipped', 'converted'] as const) {
      for (const r of f[kind]) rows.push([f.file, f.format, '', '', '', h.kinds[kind], r.reason, r.count, r.message]);
    }
  }
  for (const r of data.results) {
    if (r.status === 'refused') rows.push([r.name, '', '', '', '', h.kinds.refused, r.code ?? '', '', r.message ?? '']);
  }
  return `\uFEFF${rows.map((row) => row.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

/** `<model>-import-report.csv`, with the characters file systems refuse replaced. */
export function reportFileName(model: string | undefined): string {
  const printable = Array.from(model ?? '', (c) => (c < ' ' ? '_' : c)).join('');
  const base = printable.replace(/[\\/:*?"<>|]+/g, '_').trim().slice(0, 80);
  return `${base || 'loupe'}-import-report.csv`;
}

/** Hand a text to the browser as a download (client-side Blob, nothing sent to the server). */
export function saveText(text: string, fileName: string, type = 'text/csv;charset=utf-8'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The click has handed the Blob to the download; revoke on the next turn, Safari reads it asynchronously.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
