// The HTTP steps bench/agent.mjs takes through the real server, as a client would: models, uploads (an annotation
// ZIP carrying its images, class folders), splits, the agent, a default training, test runs. Nothing here reaches
// into the server's internals; every call goes over HTTP with the user's session token.
import { zipOf } from "./sample.mjs";

/** Images per upload request: well under the server's upload limit for 640 px JPEGs. */
const UPLOAD_CHUNK = 100;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A client of one server for one session token; each call throws on an answer whose code is not 0. */
export function apiClient(base, token) {
  const send = async (method, path, body, form) => {
    const headers = { "x-token": token, ...(body ? { "content-type": "application/json" } : {}) };
    const r = await fetch(base + path, { method, headers, body: form ?? (body ? JSON.stringify(body) : undefined) });
    const json = await r.json();
    if (json.code !== 0) throw new Error(`${method} ${path}: ${r.status} code ${json.code} ${json.message ?? ""}`);
    return json.data;
  };
  return {
    get: (path) => send("GET", path),
    post: (path, body = {}) => send("POST", path, body),
    put: (path, body) => send("PUT", path, body),
    form: (path, form) => send("POST", path, undefined, form),
  };
}

/** Polls `read` every `everyMs` until `done(value)`, or throws after `timeoutS`; `onValue` sees each value. */
export async function waitUntil(read, done, { timeoutS, everyMs = 2000, onValue = () => {}, what }) {
  const end = Date.now() + timeoutS * 1000;
  for (;;) {
    const v = await read();
    onValue(v);
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not done after ${timeoutS} s`);
    await sleep(everyMs);
  }
}

/** A new model of `type` (DETECTION, classification). */
export const createModel = (api, name, type) => api.post("/api/models", { name, type });

/**
 * Detection: the images and their COCO boxes through the annotation-ZIP route, in chunks (each ZIP carries its
 * images and a COCO file of just those). Returns the server's counts summed.
 */
export async function importCoco(api, modelId, coco, readImage) {
  const sum = { imagesAdded: 0, annotations: 0, skipped: 0, refused: 0 };
  for (let i = 0; i < coco.images.length; i += UPLOAD_CHUNK) {
    const images = coco.images.slice(i, i + UPLOAD_CHUNK);
    const ids = new Set(images.map((im) => im.id));
    const doc = { images, categories: coco.categories, annotations: coco.annotations.filter((a) => ids.has(a.image_id)) };
    const entries = [...images.map((im) => ({ path: `images/${im.file_name}`, data: readImage(im.file_name) })), { path: "annotations/instances.json", data: JSON.stringify(doc) }];
    const form = new FormData();
    form.append("file", new Blob([await zipOf(entries)]), "import.zip");
    const d = await api.form(`/api/models/${modelId}/images/annotations`, form);
    sum.imagesAdded += d.imagesAdded;
    sum.annotations += d.annotations;
    sum.skipped += d.skipped;
    sum.refused += d.results.filter((r) => r.status === "refused").length;
  }
  return sum;
}

/** Classification: files ({ name: '<class>/<file>', data }) through the class-folder upload, in chunks. */
export async function uploadFolders(api, modelId, files) {
  const sum = { accepted: 0, refused: 0, reasons: new Map() };
  for (let i = 0; i < files.length; i += UPLOAD_CHUNK) {
    const form = new FormData();
    for (const f of files.slice(i, i + UPLOAD_CHUNK)) form.append("files", new Blob([f.data]), f.name);
    const d = await api.form(`/api/models/${modelId}/images/folders`, form);
    sum.accepted += d.accepted;
    sum.refused += d.refused;
    for (const r of d.results) if (r.status === "refused") sum.reasons.set(r.message, (sum.reasons.get(r.message) ?? 0) + 1);
  }
  return sum;
}

/** Images alone ({ name, data }) through the plain upload, in chunks: name → image id of each accepted one. */
export async function uploadImages(api, modelId, files) {
  const ids = new Map();
  for (let i = 0; i < files.length; i += UPLOAD_CHUNK) {
    const form = new FormData();
    for (const f of files.slice(i, i + UPLOAD_CHUNK)) form.append("files", new Blob([f.data]), f.name);
    const d = await api.form(`/api/models/${modelId}/images/upload`, form);
    for (const r of d.results) if (r.status === "accepted") ids.set(r.name, r.imageId);
  }
  return ids;
}

/** Every image of the model: name → id. */
export async function imageIdsByName(api, modelId) {
  const out = new Map();
  for (let after = null; ; ) {
    const d = await api.get(`/api/models/${modelId}/images?pageSize=200${after ? `&after=${after}` : ""}`);
    for (const im of d.items) out.set(im.name, im.id);
    if (d.nextAfter === null) return out;
    after = d.nextAfter;
  }
}

/** Puts the named images into `split`. */
export async function setSplit(api, modelId, byName, names, split) {
  const ids = names.map((n) => byName.get(n)).filter((id) => id !== undefined);
  for (let i = 0; i < ids.length; i += 5000) await api.post(`/api/models/${modelId}/images/split`, { ids: ids.slice(i, i + 5000), split });
  return ids.length;
}

const TERMINAL_AGENT = ["complete", "failed", "cancelled"];

/**
 * Starts the agent and follows it to its end: when each phase was first seen (seconds from the start), the last
 * run, its trials and log.
 */
export async function runAgent(api, modelId, budgetS) {
  const t0 = Date.now();
  const run = await api.post(`/api/models/${modelId}/agents`, { budgetS });
  const phases = [];
  let lastPhase = null;
  const final = await waitUntil(() => api.get(`/api/models/${modelId}/agents/${run.id}`), (d) => TERMINAL_AGENT.includes(d.run.phase), {
    what: `agent ${run.id}`,
    // The budget, the job's grace past it, and the queue's and the tests' overheads.
    timeoutS: budgetS * 1.5 + 900,
    onValue: (d) => {
      if (d.run.phase === lastPhase) return;
      lastPhase = d.run.phase;
      phases.push({ phase: d.run.phase, atS: (Date.now() - t0) / 1000 });
    },
  });
  return { ...final, phases, wallS: (Date.now() - t0) / 1000 };
}

const TERMINAL_TRAINING = ["succeeded", "failed", "cancelled"];

/** Starts a training with the model's saved parameters (defaults on a new model) and follows it to its end. */
export async function runDefaultTraining(api, modelId, budgetS) {
  const t0 = Date.now();
  const t = await api.post(`/api/models/${modelId}/trainings`, {});
  const done = await waitUntil(() => api.get(`/api/models/${modelId}/trainings/${t.id}`), (d) => TERMINAL_TRAINING.includes(d.status), {
    what: `training ${t.id}`,
    timeoutS: budgetS * 1.5 + 900,
    everyMs: 5000,
  });
  return { training: done, wallS: (Date.now() - t0) / 1000 };
}

/** A test run of one version on the chosen images with `settings`, followed to its end. */
export async function runTest(api, modelId, trainingId, imageIds, settings) {
  const t0 = Date.now();
  const run = await api.post(`/api/models/${modelId}/tests`, { trainingId, source: "images", imageIds, settings });
  const done = await waitUntil(() => api.get(`/api/models/${modelId}/tests/${run.id}`), (d) => TERMINAL_TRAINING.includes(d.status), {
    what: `test ${run.id}`,
    timeoutS: 3600,
    everyMs: 3000,
  });
  if (done.status !== "succeeded") throw new Error(`test ${run.id} of version ${done.version}: ${done.status} ${done.error ?? ""}`);
  return { ...done, wallS: (Date.now() - t0) / 1000 };
}
