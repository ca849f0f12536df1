import { describe, expect, it } from 'vitest';
import { asHistory, bytes, pageOf, projectStatusOf } from './monitorApi';

describe('monitor helpers', () => {
  it('links each job to its page, typed steps with the model type', () => {
    expect(pageOf('training', 'DETECTION')).toBe('/train/detection');
    expect(pageOf('test', 'OCR')).toBe('/test/ocr');
    expect(pageOf('export', 'DETECTION')).toBe('/download/downloadModel');
  });

  it('locks the project while a training or a test is active, not for an export', () => {
    expect(projectStatusOf([{ kind: 'export' }, { kind: 'training' }])).toBe('training');
    expect(projectStatusOf([{ kind: 'test' }])).toBe('testing');
    expect(projectStatusOf([{ kind: 'export' }])).toBe('no');
    expect(projectStatusOf([])).toBe('no');
  });

  it('writes memory for people', () => {
    expect(bytes(512)).toBe('512 B');
    expect(bytes(1536)).toBe('1.5 KB');
    expect(bytes(734_003_200)).toBe('700 MB');
    expect(bytes(null)).toBe('—');
  });

  it('turns the monitor epochs into the chart helpers’ history', () => {
    expect(asHistory([{ epoch: 2, metrics: { loss: 1 } }], 3)).toEqual([{ epoch: 2, epochs: 3, metrics: { loss: 1 }, etaS: null }]);
  });
});
