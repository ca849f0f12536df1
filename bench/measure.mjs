// Measurement benchmark: the engine's SPEC §3 fields on exactly known shapes (random rotated rectangles 20-200 px
// long and discs 10-200 px across, as pixel-centre masks in a 320x320 image), their errors and objects/s.
// Ends with one line: BENCH measure axis_err_px=… angle_err_deg=… area_err_pct=… centroid_err_px=… objects_per_s=…
import { execFileSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ENV, logMachine, PY } from "./engine-run.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const N = Number(process.env.BENCH_OBJECTS ?? 400);
logMachine();
const r = JSON.parse(execFileSync(PY, [join(ROOT, "bench/measure-accuracy.py"), String(N)], { env: ENV, encoding: "utf8" }));
const row = (name, v, unit) => console.log(`  ${name.padEnd(16)} mean ${v.mean.toFixed(3)}  mean |err| ${v.mean_abs.toFixed(3)}  max |err| ${v.max_abs.toFixed(3)} ${unit}`);
console.log(`${r.objects} objects (masks unless noted):`);
row("rect major axis", r.rect_major, "px");
row("rect minor axis", r.rect_minor, "px");
row("rect angle", r.rect_angle, "deg");
row("rect area", r.rect_area_pct, "%");
row("disc diameter", r.disc_diameter, "px");
row("disc area", r.disc_area_pct, "%");
row("centroid", r.centroid, "px");
row("polygon major", r.poly_major, "px");
const axis = (r.rect_major.mean_abs + r.rect_minor.mean_abs + r.disc_diameter.mean_abs) / 3;
const area = (Math.abs(r.rect_area_pct.mean_abs) + Math.abs(r.disc_area_pct.mean_abs)) / 2;
console.log(`BENCH measure axis_err_px=${axis.toFixed(3)} angle_err_deg=${r.rect_angle.mean_abs.toFixed(3)} area_err_pct=${area.toFixed(3)} centroid_err_px=${r.centroid.mean_abs.toFixed(3)} objects_per_s=${r.objects_per_s.toFixed(0)}`);
