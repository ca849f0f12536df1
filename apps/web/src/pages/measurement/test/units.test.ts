import { describe, expect, it } from 'vitest';
import { toMillimetres } from '@loupe/contracts';
import { digitsOf, formatRange, formatValue, unitOf } from '../units';

describe('units', () => {
  it('names each field’s unit: lengths and positions linear, the area squared, the angle in degrees', () => {
    expect(['area', 'major_axis', 'minor_axis', 'angle', 'centroid_x', 'centroid_y'].map((f) => unitOf(f as never, 'mm'))).toEqual(['mm²', 'mm', 'mm', '°', 'mm', 'mm']);
    expect(unitOf('area', 'px')).toBe('px²');
  });

  it('formats with the digits the unit deserves, and a dash for nothing', () => {
    expect(formatValue('area', 1234.56, 'px')).toBe('1235 px²');
    expect(formatValue('major_axis', 12.345, 'px')).toBe('12.3 px');
    expect(formatValue('major_axis', 0.61725, 'mm')).toBe('0.617 mm');
    expect(formatValue('area', 0.0123, 'mm')).toBe('0.01 mm²');
    expect(formatValue('angle', 179.96, 'mm')).toBe('180.0°');
    expect(formatValue('centroid_x', null, 'mm')).toBe('–');
    expect(formatValue('centroid_x', Number.NaN, 'mm')).toBe('–');
    expect(digitsOf('angle', 'px')).toBe(1);
  });

  it('writes ranges with open ends, and counts without a unit', () => {
    expect(formatRange('major_axis', { min: 9.9, max: 10.1 }, 'mm')).toBe('9.900 mm – 10.100 mm');
    expect(formatRange('major_axis', { min: 9.9, max: null }, 'mm')).toBe('≥ 9.900 mm');
    expect(formatRange('angle', { max: 10 }, 'px')).toBe('≤ 10.0°');
    expect(formatRange(null, { min: 1, max: 3 }, 'px')).toBe('1 – 3');
    expect(formatRange(null, {}, 'px')).toBe('–');
  });

  it('converts pixels to mm by the scale, the area by its square, the angle not at all', () => {
    const px = { area: 400, major_axis: 25, minor_axis: 16, angle: 33, centroid_x: 10, centroid_y: 20 };
    expect(toMillimetres(px, 0.1)).toEqual({ area: expect.closeTo(4, 12), major_axis: 2.5, minor_axis: expect.closeTo(1.6, 12), angle: 33, centroid_x: 1, centroid_y: 2 });
  });
});
