import { describe, expect, it } from 'vitest';
import { angleArc, checkTolerances, inRange, judgeImage, proposeTolerances, type MeasuredImage, type ObjectMeasure, type Tolerances } from '@loupe/contracts';
import { fromForm, previewVerdicts, toForm } from '../toleranceForm';

const m = (o: Partial<ObjectMeasure>): ObjectMeasure => ({ area: 100, major_axis: 10, minor_axis: 4, angle: 0, centroid_x: 5, centroid_y: 5, ...o });
const image = (imageId: number, objects: { labelId: number; px: ObjectMeasure; mm?: ObjectMeasure | null }[]): MeasuredImage => ({
  imageId,
  name: `${imageId}.png`,
  width: 64,
  height: 64,
  thumbUrl: '',
  count: objects.length,
  counts: {},
  ok: null,
  failures: [],
  objects: objects.map((o) => ({ labelId: o.labelId, confidence: 0.9, px: o.px, mm: o.mm ?? null, failed: [] })),
});

describe('tolerance judging', () => {
  const tol: Tolerances = {
    unit: 'px',
    count: { min: 1, max: 2 },
    labels: [{ labelId: 1, count: { min: null, max: 1 }, fields: { major_axis: { min: 9, max: 11 }, angle: { min: 170, max: 10 } } }],
  };

  it('is OK inside every range, bounds included, and names each object field and count that fails', () => {
    expect(judgeImage([{ labelId: 1, values: m({ major_axis: 11, angle: 175 }) }], tol)).toMatchObject({ ok: true, failures: [] });
    const bad = judgeImage([{ labelId: 1, values: m({ major_axis: 11.5, angle: 90 }) }, { labelId: 1, values: m({}) }, { labelId: 2, values: m({ major_axis: 50 }) }], tol);
    expect(bad.ok).toBe(false);
    expect(bad.failed).toEqual([['major_axis', 'angle'], [], []]);
    expect(bad.failures.map((f) => [f.kind, f.labelId, f.index, f.field])).toEqual([
      ['field', 1, 0, 'major_axis'],
      ['field', 1, 0, 'angle'],
      ['count', null, null, null],
      ['count', 1, null, null],
    ]);
    expect(bad.counts).toEqual({ 1: 2, 2: 1 });
  });

  it('wraps angle ranges past 180° only for angles, and an empty image fails a minimum count', () => {
    expect(inRange(5, { min: 170, max: 10 }, true)).toBe(true);
    expect(inRange(5, { min: 170, max: 10 }, false)).toBe(false);
    expect(inRange(10 + 1e-10, { max: 10 })).toBe(true);
    expect(judgeImage([], tol)).toMatchObject({ ok: false, failures: [{ kind: 'count', value: 0 }] });
  });

  it('checks a form before it is sent: min above max, whole counts, angles within 0–180°, mm needs a calibration', () => {
    const bad: Tolerances = { unit: 'mm', count: { min: 0.5 }, labels: [{ labelId: 1, fields: { area: { min: 5, max: 1 }, angle: { min: 170, max: 10 }, centroid_y: { max: Number.NaN } } }, { labelId: 9, fields: {} }] };
    expect(checkTolerances(bad, new Set([1]), false).map((p) => `${p.field}:${p.reason}`)).toEqual([
      'unit:needsCalibration',
      'count.min:integer',
      'labels.0.fields.area.min:minAboveMax',
      'labels.0.fields.centroid_y.max:type',
      'labels.1.labelId:labelNotInModel',
    ]);
    expect(checkTolerances(tol, new Set([1]), false)).toEqual([]);
  });

  it('previews the verdicts of shown images in the tolerances’ unit, and cannot in mm without mm values', () => {
    const imgs = [image(1, [{ labelId: 1, px: m({}), mm: m({ major_axis: 1 }) }]), image(2, [{ labelId: 1, px: m({ major_axis: 20 }), mm: m({ major_axis: 2 }) }])];
    expect(previewVerdicts(imgs, tol)).toEqual(new Map([[1, true], [2, false]]));
    const mm: Tolerances = { unit: 'mm', labels: [{ labelId: 1, fields: { major_axis: { max: 1.5 } } }] };
    expect(previewVerdicts(imgs, mm)).toEqual(new Map([[1, true], [2, false]]));
    expect(previewVerdicts([image(3, [{ labelId: 1, px: m({}) }])], mm)).toBeNull();
  });
});

describe('the tolerance form', () => {
  it('has a row for every label and saves only what is bounded', () => {
    const saved: Tolerances = { unit: 'px', count: null, labels: [{ labelId: 2, count: { min: 1, max: 1 }, fields: { area: { min: 10, max: null } } }] };
    const form = toForm(saved, [1, 2]);
    expect(form.labels.map((l) => l.labelId)).toEqual([1, 2]);
    expect(form.labels[0]!.fields.area).toEqual({ min: null, max: null });
    expect(form.labels[1]!.fields.area).toEqual({ min: 10, max: null });
    expect(fromForm(form, 'px')).toEqual(saved);
    expect(fromForm(toForm(null, [1, 2]), 'mm')).toEqual({ unit: 'mm', count: null, labels: [] });
  });
});

describe('golden samples', () => {
  it('propose each field from min − x % to max + x %, counts as seen, and angles on their smallest arc', () => {
    const images = [
      { objects: [{ labelId: 1, values: m({ major_axis: 10, angle: 178 }) }] },
      { objects: [{ labelId: 1, values: m({ major_axis: 12, angle: 2 }) }, { labelId: 1, values: m({ major_axis: 11, angle: 4 }) }] },
    ];
    const { stats, proposal } = proposeTolerances(images, [1, 2], 10, 'mm');
    expect(stats).toHaveLength(1);
    expect(stats[0]).toMatchObject({ labelId: 1, objects: 3, countMin: 1, countMax: 2, fields: { major_axis: { min: 10, max: 12 } } });
    const l = proposal.labels[0]!;
    expect(l.fields.major_axis).toEqual({ min: 9, max: 13.2 });
    expect(l.count).toEqual({ min: 1, max: 2 });
    // 178°, 2° and 4° lie on a 6° arc across 0°: widened by 18° each side, it wraps.
    expect(angleArc([178, 2, 4])).toEqual({ start: 178, end: 4, width: 6 });
    expect(l.fields.angle).toEqual({ min: 160, max: 22 });
    expect(proposal).toMatchObject({ unit: 'mm', count: { min: 1, max: 2 } });
    // A square sample (minor axis ≥ 0.9 × major) has no direction: no angle range.
    const square = [{ objects: [{ labelId: 1, values: m({ major_axis: 10, minor_axis: 9.5, angle: 3 }) }] }];
    expect(proposeTolerances(square, [1], 5, 'px').proposal.labels[0]!.fields.angle).toBeUndefined();
    // Angles every 45°: the smallest arc is 135° (45° round to 0°); with 25 % (45°) margins it covers the half
    // circle, so no angle range at all.
    const spread = [{ objects: [0, 45, 90, 135].map((a) => ({ labelId: 1, values: m({ angle: a }) })) }];
    expect(proposeTolerances(spread, [1], 0, 'px').proposal.labels[0]!.fields.angle).toEqual({ min: 45, max: 0 });
    expect(proposeTolerances(spread, [1], 25, 'px').proposal.labels[0]!.fields.angle).toBeUndefined();
  });
});
