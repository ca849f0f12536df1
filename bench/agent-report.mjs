// What bench/agent.mjs prints of each side: the agent's phases and their times, plan, trials, adoption, chosen
// parameters, versions and log; the default training's version, epochs and time. Read over the HTTP API.

const s = (x) => (typeof x === "number" ? `${x.toFixed(0)} s` : "?");
const score = (x) => (typeof x === "number" ? x.toFixed(4) : "-");
/** How the engine's run went: what stopped it, under which limit, and the network's size. */
const run = (sum) => (sum ? `stopped by ${sum.stopped_by ?? "?"} (limit ${s(sum.time_limit_s)}), ${((sum.param_count ?? 0) / 1e6).toFixed(2)} M parameters` : "no summary");
const params = (p) => (p ? Object.entries(p).map(([k, v]) => `${k}=${v}`).join(" ") : "none");

/** One version as the version table has it: number, status, epochs, validation accuracy, time, size. */
async function printVersion(api, modelId, trainingId, tag) {
  const t = await api.get(`/api/models/${modelId}/trainings/${trainingId}`);
  console.log(
    `  ${tag} ${t.version} (training ${t.id}): ${t.status}, epoch ${t.epoch}/${t.epochs}, validation accuracy ${score(t.accuracy)}, ${s(t.durationS)}` +
      `, ${run(t.summary)}, model ${t.params.model ?? "auto"} imgsz ${t.params.imgsz ?? "default"}${t.error ? `, error: ${t.error}` : ""}`,
  );
}

/** The agent's run as it ended (runAgent's answer). */
export async function printAgent(api, modelId, { run, trials, log, phases, wallS }) {
  console.log(`agent run ${run.id}: ${run.phase} after ${s(wallS)} (budget ${run.budgetS} s)${run.error ? `, error: ${run.error}` : ""}`);
  const seen = phases.map((p, i) => `${p.phase} ${s((phases[i + 1]?.atS ?? wallS) - p.atS)}`);
  console.log(`  phases seen (time in each): ${seen.join(" → ")}`);
  console.log(`  plan: ${Object.entries(run.plan).map(([k, v]) => `${k} ${s(v)}`).join(", ")}`);
  const states = {};
  for (const t of trials) states[t.state] = (states[t.state] ?? 0) + 1;
  const best = trials.filter((t) => typeof t.score === "number").sort((a, b) => b.score - a.score)[0];
  console.log(`  trials: ${trials.length} (${Object.entries(states).map(([k, v]) => `${v} ${k}`).join(", ") || "none"}), best score ${score(best?.score)}${best ? ` (trial ${best.number})` : ""}`);
  for (const t of trials) console.log(`    #${t.number} ${t.state.padEnd(8)} score ${score(t.score)} epochs ${t.epochs} ${s(t.durationS)}  ${params(t.params)}`);
  console.log(`  adopted: ${run.adopted}; base: ${params(run.baseParams)}`);
  console.log(`  chosen: ${params(run.chosenParams)}`);
  for (const id of run.trainingIds) await printVersion(api, modelId, id, id === run.bestTrainingId ? "best" : "    ");
  for (const id of run.testRunIds) {
    const t = await api.get(`/api/models/${modelId}/tests/${id}`);
    const own = ["mAP50", "top1"].filter((k) => k in (t.summary ?? {})).map((k) => `${k} ${score(t.summary[k])}`).join(" ");
    console.log(`  own test ${t.id} of ${t.version} on ${t.imageCount} images at conf ${t.settings.conf}: ${t.status}, ${own}`);
  }
  console.log("  log:");
  for (const e of log) console.log(`    [${e.phase}] ${e.text}`);
}

/** The default training (runDefaultTraining's answer). */
export function printDefault({ training: t, wallS }) {
  console.log(
    `default ${t.version} (training ${t.id}): ${t.status} after ${s(wallS)}, epoch ${t.epoch}/${t.epochs}, validation accuracy ${score(t.accuracy)}` +
      `, ${run(t.summary)}, parameters: ${params(t.params) === "" ? "the defaults" : params(t.params)}${t.error ? `, error: ${t.error}` : ""}`,
  );
}
