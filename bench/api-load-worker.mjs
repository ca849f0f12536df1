// One autocannon instance in its own thread (bench/api-load.mjs): two instances in one thread would share one
// event loop, so the load generator itself, not the servers, would cap what two servers can be offered.
// In a worker autocannon hands back its raw result (histograms encoded), which the parent merges.
import { parentPort, workerData } from "node:worker_threads";
import autocannon from "autocannon";

parentPort.postMessage(await autocannon(workerData));
