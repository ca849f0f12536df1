// Load for bench/api.mjs: one autocannon instance per server URL, each in its own worker thread, the
// connections split evenly between them; the figures are the sum of their requests and their merged latency
// histogram (so p99 is the p99 of every request, not the mean of two p99s).
import { Worker } from "node:worker_threads";
import autocannon from "autocannon";

const WORKER = new URL("./api-load-worker.mjs", import.meta.url);

function instance(opts) {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, { workerData: opts });
    w.once("message", resolve);
    w.once("error", reject);
    w.once("exit", (code) => code && reject(new Error(`autocannon worker exited with ${code}`)));
  });
}

/**
 * Drives `path` on every base URL at once for `duration` s with `connections` in all; returns rps (sum over
 * instances of completed requests / their duration), p50/p99/max of the merged histogram, errors (failed
 * requests: errors include timeouts; plus non-2xx answers) and per-instance rps and p99.
 */
export async function runLoad(bases, path, { headers, connections, duration, timeout = 10 }) {
  const per = Math.ceil(connections / bases.length);
  const raw = await Promise.all(bases.map((b) => instance({ url: b + path, headers, connections: per, duration, timeout })));
  const each = raw.map((r, i) => {
    const a = autocannon.aggregateResult([r], { url: bases[i] + path, connections: per });
    return { rps: r.totalCompletedRequests / r.duration, p99: a.latency.p99 };
  });
  const merged = autocannon.aggregateResult(raw, { url: bases[0] + path, connections });
  return {
    rps: each.reduce((s, e) => s + e.rps, 0),
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    max: merged.latency.max,
    total: merged.requests.total,
    errors: merged.errors + merged.non2xx,
    timeouts: merged.timeouts,
    non2xx: merged.non2xx,
    each,
  };
}
