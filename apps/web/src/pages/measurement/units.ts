import { FieldDimension, type MeasureField, type MeasureUnit } from '@loupe/contracts';

/** The unit a field is shown in: px, px², mm, mm², or degrees for the angle. */
export function unitOf(field: MeasureField, unit: MeasureUnit): string {
  const d = FieldDimension[field];
  if (d === 'angle') return '°';
  return d === 'area' ? `${unit}²` : unit;
}

/** Digits worth showing: pixels to 0.1 (areas whole), millimetres to 0.001 (areas 0.01), angles to 0.1°. */
export function digitsOf(field: MeasureField, unit: MeasureUnit): number {
  const d = FieldDimension[field];
  if (d === 'angle') return 1;
  if (unit === 'px') return d === 'area' ? 0 : 1;
  return d === 'area' ? 2 : 3;
}

/** "12.3 px", "0.456 mm²", "30.0°"; an absent value is an en dash. */
export function formatValue(field: MeasureField, value: number | null | undefined, unit: MeasureUnit): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  const u = unitOf(field, unit);
  return `${value.toFixed(digitsOf(field, unit))}${u === '°' ? '°' : ` ${u}`}`;
}

/** A tolerance range as text: "10 – 12 mm", "≥ 10 mm", "≤ 12 mm"; angles that wrap read "170° – 10°". */
export function formatRange(field: MeasureField | null, range: { min?: number | null; max?: number | null }, unit: MeasureUnit): string {
  const show = (v: number) => (field ? formatValue(field, v, unit) : String(v));
  const lo = range.min ?? null;
  const hi = range.max ?? null;
  if (lo !== null && hi !== null) return `${show(lo)} – ${show(hi)}`;
  if (lo !== null) return `≥ ${show(lo)}`;
  if (hi !== null) return `≤ ${show(hi)}`;
  return '–';
}
