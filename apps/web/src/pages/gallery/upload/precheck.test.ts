import { describe, expect, it } from 'vitest';
import { checkFile, extensionOf, precheck, readFolders, type PrecheckRules } from './precheck';

const rules: PrecheckRules = { extensions: ['jpg', 'jpeg', 'png'], maxFileBytes: 100 };

function file(name: string, size: number, relativePath = '') {
  const f = new File([new Uint8Array(size)], name);
  if (relativePath) Object.defineProperty(f, 'webkitRelativePath', { value: relativePath });
  return f;
}

describe('client pre-checks', () => {
  it('reads extensions case-insensitively', () => {
    expect(extensionOf('A.JPG')).toBe('jpg');
    expect(extensionOf('archive.tar.png')).toBe('png');
    expect(extensionOf('README')).toBe('');
  });

  it('refuses a wrong type, an empty file and a file over the size limit; the limit itself passes', () => {
    expect(checkFile(file('a.gif', 10), rules)).toBe('type');
    expect(checkFile(file('a.png', 0), rules)).toBe('empty');
    expect(checkFile(file('a.png', 101), rules)).toBe('size');
    expect(checkFile(file('a.PNG', 100), rules)).toBeNull();
  });

  it('keeps good files and lists the refused ones with their reason', () => {
    const result = precheck([file('a.png', 100), file('b.bmp', 10), file('c.jpg', 100)], rules);
    expect(result.accepted.map((f) => f.name)).toEqual(['a.png', 'c.jpg']);
    expect(result.refused).toEqual([{ name: 'b.bmp', reason: 'type' }]);
    expect(result.acceptedBytes).toBe(200);
  });

  it('takes the picked folder as the label and refuses nested files', () => {
    const result = readFolders(
      [file('1.jpg', 5, 'scratch/1.jpg'), file('2.jpg', 5, 'scratch/deeper/2.jpg'), file('3.jpg', 5, 'scratch/3.jpg')],
      false,
    );
    expect(result.labels).toEqual(['scratch']);
    expect(result.files.map((f) => [f.file.name, f.label])).toEqual([['1.jpg', 'scratch'], ['3.jpg', 'scratch']]);
    expect(result.refused).toEqual([{ name: 'scratch/deeper/2.jpg', reason: 'nested' }]);
  });

  it('with several folders takes each sub-folder as a class and refuses loose files', () => {
    const result = readFolders(
      [file('1.jpg', 5, 'set/ok/1.jpg'), file('2.jpg', 5, 'set/dent/2.jpg'), file('x.jpg', 5, 'set/x.jpg'), file('3.jpg', 5, 'set/ok/a/3.jpg')],
      true,
    );
    expect(result.labels).toEqual(['dent', 'ok']);
    expect(result.refused).toEqual([
      { name: 'set/x.jpg', reason: 'notInFolder' },
      { name: 'set/ok/a/3.jpg', reason: 'nested' },
    ]);
  });
});
