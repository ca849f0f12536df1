/**
 * The labeling canvas's second thread. It decodes images (fetch + createImageBitmap, so a busy page never holds
 * a decode back) and renders the scene (image + 2,000 polygons: 30-60 ms of software raster) for the view the
 * page asks for, while the page keeps drawing its previous render stretched, so no frame waits for a render.
 */
import { paintPlan, type RasterPlan } from '../layers/rasterPlan';
import { decodePaths } from '../pathRecorder';
import type { ContentMessage, FromWorker, ToWorker } from './protocol';

/** The worker's global, typed by hand: the app compiles against the DOM library, not the worker one. */
const scope = self as unknown as {
  postMessage(message: FromWorker, transfer: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

/** Decoded images kept for rendering: the open one, the one before and the prefetched neighbours. */
const IMAGE_CAPACITY = 4;
const images = new Map<string, Promise<ImageBitmap>>();
type Content = ContentMessage & { paths: ReturnType<typeof decodePaths>; testPaths: ReturnType<typeof decodePaths> | null };
const contents = new Map<number, Content>();
let canvas: OffscreenCanvas | null = null;

function image(url: string): Promise<ImageBitmap> {
  let bitmap = images.get(url);
  if (bitmap) images.delete(url);
  else {
    bitmap = fetch(url).then(async (res) => {
      if (!res.ok) throw new Error(`image ${res.status}`);
      return createImageBitmap(await res.blob(), { imageOrientation: 'from-image' });
    });
    // A failed image is fetched again the next time.
    bitmap.catch(() => images.get(url) === bitmap && images.delete(url));
  }
  // Most recently used last; the oldest goes first.
  images.set(url, bitmap);
  for (const [old, evicted] of images) {
    if (images.size <= IMAGE_CAPACITY) break;
    images.delete(old);
    void evicted.then((b) => b.close(), () => undefined);
  }
  return bitmap;
}

async function render(owner: number, contentId: number, plan: RasterPlan): Promise<ImageBitmap> {
  const c = contents.get(owner);
  if (!c || c.contentId !== contentId) throw new Error('stale content');
  const source = c.imageUrl ? await image(c.imageUrl) : null;
  if (contents.get(owner) !== c) throw new Error('stale content');
  if (!canvas) canvas = new OffscreenCanvas(plan.w, plan.h);
  else if (canvas.width !== plan.w || canvas.height !== plan.h) {
    canvas.width = plan.w;
    canvas.height = plan.h;
  }
  const ctx = canvas.getContext('2d')!;
  paintPlan(ctx, plan, { image: source, size: c.size, filter: c.filter, shapes: c.paths, tests: c.testPaths });
  return canvas.transferToImageBitmap();
}

const reply = (message: FromWorker) => scope.postMessage(message, message.type === 'done' ? [message.bitmap] : []);
const fail = (id: number, error: unknown) => reply({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });

scope.onmessage = (event) => {
  const m = event.data;
  if (m.type === 'content') {
    contents.set(m.owner, { ...m, paths: decodePaths(m.shapes), testPaths: m.tests ? decodePaths(m.tests) : null });
  } else if (m.type === 'release') {
    contents.delete(m.owner);
    // The surface can hold 64 MB; the next render makes a new one.
    if (contents.size === 0) canvas = null;
  } else if (m.type === 'forget') {
    const bitmap = images.get(m.url);
    images.delete(m.url);
    void bitmap?.then((b) => b.close(), () => undefined);
  } else if (m.type === 'decode') {
    // The page gets its own copy: it closes it when it evicts the image, independently of ours.
    image(m.url)
      .then((b) => createImageBitmap(b))
      .then((bitmap) => reply({ type: 'done', id: m.id, bitmap }), (e: unknown) => fail(m.id, e));
  } else {
    render(m.owner, m.contentId, m.plan).then((bitmap) => reply({ type: 'done', id: m.id, bitmap }), (e: unknown) => fail(m.id, e));
  }
};
