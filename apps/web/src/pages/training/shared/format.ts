import { currentLanguage } from '@/i18n';

/** Shown for a value that does not exist (no accuracy, no GPU, not finished). */
export const DASH = '—';

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** 0.873 → "87.3 %". */
export function percent(value: unknown, digits = 1): string {
  return isNum(value) ? `${(value * 100).toFixed(digits)} %` : DASH;
}

/** A number with a fixed count of decimals, in the user's locale. */
export function fixed(value: unknown, digits: number, unit = ''): string {
  if (!isNum(value)) return DASH;
  const text = value.toLocaleString(currentLanguage(), { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit ? `${text} ${unit}` : text;
}

/** Seconds for people: "45 s", "3 min 05 s", "2 h 07 min". */
export function duration(seconds: unknown): string {
  if (!isNum(seconds) || seconds < 0) return DASH;
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return DASH;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? DASH : date.toLocaleString(currentLanguage());
}
