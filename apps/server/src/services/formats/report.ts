import { LabelingLimits, type AnnotationFormat, type ErrorName, type ImportFileReport, type Language, type UploadResult } from '@loupe/contracts';
import { AppError, type ErrorVars } from '../../errors.js';
import { errorMessage, expectedText, importText } from '../../i18n.js';
import type { ConvertReason, Parsed, SkipReason } from './types.js';

/** Problems listed in one answer; a file with a million bad shapes would otherwise make a million-line reply. */
export const PROBLEMS_SHOWN = 1000;

/** A refused entry of the answer, in the caller's language, with what was expected when the parser said so. */
export function refused(lang: Language, name: string, key: ErrorName, vars?: ErrorVars): UploadResult {
  const expected = vars?.expected;
  const sentence = errorMessage(lang, key, vars);
  return { name, status: 'refused', code: new AppError(key).def.code, message: expected === undefined ? sentence : `${sentence} ${expectedText(lang, expected)}`.trim() };
}

/** Shapes left out of one file for one reason; shapes on missing images keep the names of those images (one group per file). */
interface Group {
  reason: SkipReason;
  vars: ErrorVars;
  count: number;
  images?: Set<string>;
}

/** Per annotation file: shapes taken, and left out or converted by reason (with the reason's vars). */
export class Report {
  private readonly files = new Map<string, { format: AnnotationFormat; taken: number; skipped: Map<string, Group>; converted: Map<ConvertReason, number> }>();

  constructor(formats: Map<string, AnnotationFormat>) {
    for (const [file, format] of formats) this.files.set(file, { format, taken: 0, skipped: new Map(), converted: new Map() });
  }

  private row(entry: string) {
    let r = this.files.get(entry);
    if (!r) {
      r = { format: 'coco', taken: 0, skipped: new Map(), converted: new Map() };
      this.files.set(entry, r);
    }
    return r;
  }

  has = (entry: string) => this.files.has(entry);
  taken(entry: string, n = 1): void {
    this.row(entry).taken += n;
  }
  untake(entry: string, n: number): void {
    this.row(entry).taken -= n;
  }
  skip(entry: string, reason: SkipReason, vars: ErrorVars = {}, count = 1): void {
    const r = this.row(entry);
    // Shapes on missing images group per file (the first name is named), others per reason and vars.
    const key = reason === 'noImage' ? reason : `${reason}\n${JSON.stringify(vars)}`;
    const g = r.skipped.get(key);
    if (!g) r.skipped.set(key, { reason, vars, count, ...(reason === 'noImage' ? { images: new Set([String(vars.name)]) } : {}) });
    else {
      g.count += count;
      g.images?.add(String(vars.name));
    }
  }
  convert(entry: string, reason: ConvertReason, n = 1): void {
    const r = this.row(entry);
    r.converted.set(reason, (r.converted.get(reason) ?? 0) + n);
  }
  skippedTotal(): number {
    let n = 0;
    for (const r of this.files.values()) for (const g of r.skipped.values()) n += g.count;
    return n;
  }

  render(lang: Language): ImportFileReport[] {
    return [...this.files].map(([file, r]) => ({
      file,
      format: r.format,
      taken: r.taken,
      skipped: [...r.skipped.values()].map((g) => {
        // A skip's own `count` var (a class list's length) would clash with the group's count.
        const { count: names, ...vars } = g.vars;
        const images: ErrorVars = g.images ? { images: g.images.size } : {};
        return { reason: g.reason, count: g.count, message: importText(lang, 'skip', g.reason, { ...vars, ...images, ...(names !== undefined ? { count_names: names } : {}), count: g.count }) };
      }),
      converted: [...r.converted].map(([reason, count]) => ({ reason, count, message: importText(lang, 'convert', reason, { count }) })),
    }));
  }
}

/** Problems that spoil a shape are also counted in their file's report; whole-file problems are results only. */
export function reportProblems(parsed: Parsed, report: Report, lang: Language, results: UploadResult[]): void {
  for (const p of parsed.problems) {
    if (results.length < PROBLEMS_SHOWN) results.push(refused(lang, p.entry, p.key, p.vars));
    if (!report.has(p.entry)) continue;
    if (p.key === 'annotationBadField') report.skip(p.entry, 'badField', { field: String(p.vars?.field ?? '') });
    else if (p.key === 'annotationTooManyPoints') report.skip(p.entry, 'tooManyPoints', { max: LabelingLimits.polygonPointsMax });
  }
  for (const s of parsed.skips) report.skip(s.entry, s.reason, s.vars ?? {}, s.count);
}
