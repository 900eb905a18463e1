/**
 * Starts the writer thread from the TypeScript sources (tests, tsx): a bootstrap registers tsx in
 * the thread, then imports writer.ts. Not part of the build (tsconfig.build.json excludes it):
 * the built package starts dist/store/writer.js directly.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { WriterData } from "./writer-protocol.js";

export function writerFromSource(workerData: WriterData): Worker {
  const writer = new URL("./writer.ts", import.meta.url).href;
  const tsx = tsxEsmApi(import.meta.url);
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(writer)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

/** The ESM entry of tsx's API, read from its package exports (createRequire finds only the CommonJS one). */
function tsxEsmApi(from: string): string {
  const manifestPath = createRequire(from).resolve("tsx/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    exports: Record<string, { import: { default: string } }>;
  };
  const entry = manifest.exports["./esm/api"]?.import.default ?? "./dist/esm/api/index.mjs";
  return pathToFileURL(join(dirname(manifestPath), entry)).href;
}
