import { execFile } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readZip } from './images.js';

/**
 * Running the Node SDK a user downloads from /download/downloadSDK, as its README says, without installing
 * anything: its two dependencies are the packages this repository already installed.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const run = promisify(execFile);

/** Every entry of the ZIP written under `dir`; returns the entry paths. */
export async function unzipTo(file: string, dir: string): Promise<string[]> {
  const entries = await readZip(file);
  for (const [name, data] of entries) {
    const target = path.resolve(dir, name);
    if (!target.startsWith(path.resolve(dir) + path.sep)) throw new Error(`the ZIP entry ${name} leaves its folder`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, data);
  }
  return [...entries.keys()];
}

/**
 * What `npm install` in the SDK's node/ folder provides. ES module imports ignore NODE_PATH, so the packages
 * are linked into node/node_modules, where `import 'onnxruntime-node'` and `import 'sharp'` look first.
 */
export function linkNodeDependencies(sdkDir: string, names: string[]): void {
  const modules = path.join(sdkDir, 'node', 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const name of names) symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name));
}

export interface SdkDetection {
  box: [number, number, number, number];
  score: number;
  classId: number;
  label: string;
}

export interface SdkOutput {
  image: string;
  width: number;
  height: number;
  detections: SdkDetection[];
}

/** `node example.mjs IMAGE [--conf C]` in the SDK's node/ folder; its stdout is the detections as JSON. */
export async function runNodeExample(sdkDir: string, image: string, conf?: number): Promise<SdkOutput> {
  const args = ['example.mjs', image, ...(conf === undefined ? [] : ['--conf', String(conf)])];
  const { stdout } = await run(process.execPath, args, { cwd: path.join(sdkDir, 'node'), timeout: 60_000 });
  return JSON.parse(stdout) as SdkOutput;
}
