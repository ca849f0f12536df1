import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DecodedImages } from '../decodedImages';

class FakeBitmap {
  closed = false;
  constructor(readonly url: string) {}
  readonly width = 4;
  readonly height = 3;
  close() {
    this.closed = true;
  }
}

const fetched: string[] = [];
beforeEach(() => {
  fetched.length = 0;
  vi.stubGlobal('ImageBitmap', FakeBitmap);
  vi.stubGlobal('fetch', async (url: string) => {
    fetched.push(url);
    return new Response(url);
  });
  vi.stubGlobal('createImageBitmap', async (blob: Blob) => new FakeBitmap(await blob.text()));
});
afterEach(() => vi.unstubAllGlobals());

describe('decoded images', () => {
  it('fetches and decodes an image once, and peeks at it once decoded', async () => {
    const images = new DecodedImages();
    expect(images.peek('/a')).toBeNull();
    const [a, again] = await Promise.all([images.load('/a'), images.load('/a')]);
    expect(a).toBe(again);
    expect(images.peek('/a')).toBe(a);
    expect(fetched).toEqual(['/a']);
  });

  it('evicts and closes the least recently used image beyond its capacity, never a held one', async () => {
    const images = new DecodedImages(2);
    const held = images.hold('/shown');
    const shown = (await held.promise) as unknown as FakeBitmap;
    const b = (await images.load('/b')) as unknown as FakeBitmap;
    const c = (await images.load('/c')) as unknown as FakeBitmap;
    expect(shown.closed).toBe(false);
    expect(b.closed).toBe(true);
    expect(images.peek('/b')).toBeNull();
    expect(images.peek('/c')).toBe(c);
    held.release();
    await images.load('/d');
    expect(shown.closed).toBe(true);
    images.dispose();
    expect(c.closed).toBe(true);
  });

  it('forgets a failed image so that the next request tries again', async () => {
    const images = new DecodedImages();
    vi.stubGlobal('fetch', async () => new Response('', { status: 404 }));
    await expect(images.load('/gone')).rejects.toThrow();
    vi.stubGlobal('fetch', async (url: string) => new Response(url));
    await expect(images.load('/gone')).resolves.toBeInstanceOf(FakeBitmap);
  });
});
