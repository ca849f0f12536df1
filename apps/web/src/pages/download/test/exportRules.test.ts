import { describe, expect, it } from 'vitest';
import { checkExport, exportBody, initialExportValues, positiveIntProblem, rotatedHint, rotatedProblem, sdkTypeProblem, serverProblem, DEFAULT_MAX_DET } from '../export/exportRules';
import { pack, training } from './fixtures';

describe('export rules (SPEC §5)', () => {
  it('wants width, height and max detections as whole numbers above 0', () => {
    expect(positiveIntProblem(1)).toBeNull();
    expect(positiveIntProblem(4096)).toBeNull();
    expect(positiveIntProblem(0)).toBe('positiveInt');
    expect(positiveIntProblem(-5)).toBe('positiveInt');
    expect(positiveIntProblem(2.5)).toBe('positiveInt');
    expect(positiveIntProblem(Number.NaN)).toBe('positiveInt');
    expect(positiveIntProblem('12')).toBe('positiveInt');
    expect(positiveIntProblem(undefined)).toBe('required');
    expect(positiveIntProblem(null)).toBe('required');
    expect(positiveIntProblem('')).toBe('required');
  });

  it('wants one of the three SDK types', () => {
    expect(sdkTypeProblem('cpu')).toBeNull();
    expect(sdkTypeProblem('gpu1020')).toBeNull();
    expect(sdkTypeProblem('gpu30')).toBeNull();
    expect(sdkTypeProblem(undefined)).toBe('sdkRequired');
    expect(sdkTypeProblem('gpu40')).toBe('sdkRequired');
  });

  it('wants the rotated-box type the version learned', () => {
    expect(rotatedProblem(true, training({ rotated: true }))).toBeNull();
    expect(rotatedProblem(false, training({ rotated: true }))).toBe('rotatedMismatch');
    expect(rotatedProblem(true, training({ rotated: false }))).toBe('rotatedMismatch');
    // No version known (none trained yet): the server decides.
    expect(rotatedProblem(true, undefined)).toBeNull();
  });

  it('lists one problem per bad field', () => {
    expect(checkExport({ inputW: 0, inputH: null, maxDet: 1.5, rotated: true }, training(), 'sdk')).toEqual([
      { field: 'inputW', reason: 'positiveInt' },
      { field: 'inputH', reason: 'required' },
      { field: 'maxDet', reason: 'positiveInt' },
      { field: 'sdkType', reason: 'sdkRequired' },
      { field: 'rotated', reason: 'rotatedMismatch' },
    ]);
    expect(checkExport({ inputW: 1920, inputH: 1080, maxDet: 100, sdkType: 'cpu', rotated: false }, training(), 'sdk')).toEqual([]);
  });

  it('asks for an SDK type only when exporting an SDK (a model pack is a plain ONNX file)', () => {
    expect(checkExport({ inputW: 1920, inputH: 1080, maxDet: 100, rotated: false }, training(), 'model')).toEqual([]);
    expect(checkExport({ inputW: 1920, inputH: 1080, maxDet: 100, rotated: false }, training(), 'sdk')).toEqual([{ field: 'sdkType', reason: 'sdkRequired' }]);
  });

  it("reads the server's exportFailed field as the form's rule for it", () => {
    expect(serverProblem({ field: 'maxDet', reason: 'range' })).toEqual({ field: 'maxDet', reason: 'positiveInt' });
    expect(serverProblem({ field: 'sdkType', reason: 'enum' })).toEqual({ field: 'sdkType', reason: 'sdkRequired' });
    expect(serverProblem({ field: 'rotated', reason: 'invalid' })).toEqual({ field: 'rotated', reason: 'rotatedMismatch' });
    expect(serverProblem({ field: 'modelId' })).toBeNull();
    expect(serverProblem(null)).toBeNull();
  });

  it('warns that rotated boxes need an NVIDIA 20 series or newer (SPEC §9)', () => {
    expect(rotatedHint('cpu', true)).toBe('needsNvidia20');
    expect(rotatedHint('gpu1020', true)).toBe('needsNvidia20');
    expect(rotatedHint('gpu30', true)).toBeNull();
    expect(rotatedHint('cpu', false)).toBeNull();
  });
});

describe('export form values', () => {
  it('start from the latest version: its image size, its box type, the default max detections, no SDK type', () => {
    const versions = [training({ id: 12, serialNo: 2, rotated: true, params: { imgsz: 1024 } }), training()];
    expect(initialExportValues(pack(), versions)).toEqual({ trainingId: 12, inputW: 1024, inputH: 1024, maxDet: DEFAULT_MAX_DET, rotated: true });
  });

  it('start from the last pack to re-export the same', () => {
    const last = pack({ packStatus: 'failed', id: 3, trainingId: 11, inputW: 1920, inputH: 1080, maxDet: 50, sdkType: 'gpu30' });
    expect(initialExportValues(last, [training({ id: 12, serialNo: 2 }), training()])).toEqual({
      trainingId: 11,
      inputW: 1920,
      inputH: 1080,
      maxDet: 50,
      sdkType: 'gpu30',
      rotated: false,
    });
  });

  it('build the contract body', () => {
    const body = exportBody({ trainingId: 11, inputW: 1920, inputH: 1080, maxDet: 50, sdkType: 'cpu', rotated: false }, 5, 'sdk', training());
    expect(body).toEqual({ modelId: 5, trainingId: 11, kind: 'sdk', inputW: 1920, inputH: 1080, maxDet: 50, sdkType: 'cpu', rotated: false });
    const model = exportBody({ trainingId: 11, inputW: 640, inputH: 480, maxDet: 50, sdkType: 'cpu', rotated: false }, 5, 'model', training());
    expect(model).toEqual({ modelId: 5, trainingId: 11, kind: 'model', inputW: 640, inputH: 480, maxDet: 50, rotated: false });
  });
});
