// How bench/agent.mjs scores a test run on images the server holds without their labels. The platform refuses
// to test a version once labelled data was added after it trained (annotationChanged, 9002), and labelled test
// images added before training would be read by the agent (its analysis reads every image, any split). So the
// test images go in unlabelled once both sides have trained, each version predicts them in a normal test run,
// and the bench scores the run's stored predictions against the dataset's own truth, the same code for both sides:
// - mAP50 as COCO computes it: per class, predictions by falling confidence, each matched to the unmatched truth
//   box of its class with the highest IoU (at least 0.5), precision made monotone, read at 101 recall points,
//   averaged over the classes that have truth boxes. The engine's own mAP50 counts every prediction above 0.001
//   whatever the run's conf, so the runs here keep those (conf 0.001) and the scorer reads the same set;
// - top-1: the share of crops whose predicted class is their folder's.

const MAX_DETS = 100;

/** Every image of a test run with its predictions (TestImageData), all pages. */
export async function runImages(api, modelId, testId) {
  const out = [];
  for (let page = 1; ; page++) {
    const d = await api.get(`/api/models/${modelId}/tests/${testId}/images?pageSize=200&page=${page}`);
    out.push(...d.items);
    if (out.length >= d.total || d.items.length === 0) return out;
  }
}

/** The model's labels: id → name. */
export async function labelNames(api, modelId) {
  return new Map((await api.get(`/api/models/${modelId}/labels`)).map((l) => [l.id, l.name]));
}

const iou = (a, b) => {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / ((a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter);
};

/** AP at IoU 0.5 of one class: detections [{ image, box, conf }], truth Map(image → boxes), 101-point interpolation. */
function averagePrecision(detections, truth, nTruth) {
  const used = new Map([...truth].map(([image, boxes]) => [image, boxes.map(() => false)]));
  const sorted = [...detections].sort((a, b) => b.conf - a.conf);
  let tp = 0;
  const precision = [];
  const recall = [];
  sorted.forEach((d, i) => {
    const boxes = truth.get(d.image) ?? [];
    let best = -1;
    let bestIou = 0.5;
    boxes.forEach((g, k) => {
      const v = iou(d.box, g);
      if (!used.get(d.image)[k] && v >= bestIou) [best, bestIou] = [k, v];
    });
    if (best >= 0) {
      used.get(d.image)[best] = true;
      tp++;
    }
    precision.push(tp / (i + 1));
    recall.push(tp / nTruth);
  });
  for (let i = precision.length - 2; i >= 0; i--) precision[i] = Math.max(precision[i], precision[i + 1]);
  let sum = 0;
  for (let r = 0; r <= 100; r++) {
    const at = recall.findIndex((x) => x >= r / 100);
    sum += at < 0 ? 0 : precision[at];
  }
  return sum / 101;
}

/**
 * mAP50 of a detection run. items: the run's images; truthByName: image name → [{ cls, x1, y1, x2, y2 }];
 * names: label id → class name. Also answers AP50 per class.
 */
export function mAP50(items, truthByName, names) {
  const classes = new Set([...truthByName.values()].flat().map((g) => g.cls));
  const perClass = {};
  for (const cls of classes) {
    const truth = new Map();
    let n = 0;
    for (const [image, boxes] of truthByName) {
      const mine = boxes.filter((g) => g.cls === cls);
      truth.set(image, mine);
      n += mine.length;
    }
    // COCO's maxDets, as the engine counts (metrics.py): each image's best-scored MAX_DETS of the class.
    const detections = items.flatMap((it) =>
      it.predictions
        .filter((p) => names.get(p.labelId) === cls && p.geometry?.kind === "box")
        .map((p) => ({ image: it.name, box: p.geometry, conf: p.confidence ?? 0 }))
        .sort((a, b) => b.conf - a.conf)
        .slice(0, MAX_DETS),
    );
    perClass[cls] = averagePrecision(detections, truth, n);
  }
  const aps = Object.values(perClass);
  return { mAP50: aps.length ? aps.reduce((a, b) => a + b, 0) / aps.length : 0, perClass };
}

/** The truth a run's images carried (its own ground truth), as mAP50 takes it: for checking the scorer against the engine. */
export function truthOf(items, names) {
  return new Map(items.map((it) => [it.name, it.groundTruth.filter((g) => g.geometry?.kind === "box").map((g) => ({ cls: names.get(g.labelId), ...g.geometry }))]));
}

/** Top-1 of a classification run: classByImageId maps each test image's id to its true class name. */
export function top1(items, classByImageId, names) {
  const scored = items.filter((it) => classByImageId.has(it.imageId));
  const right = scored.filter((it) => it.classification && names.get(it.classification.labelId) === classByImageId.get(it.imageId)).length;
  return scored.length ? right / scored.length : 0;
}
