// `npm run bench` in packages/diff: @marketapi/diff against api-smart-diff (the peer; a library,
// installed on first use from tools/api-smart-diff) on the full spot spec, side by side in one run.
//  - the same edited copy of specs/spot-api.openapi.yaml (a breaking, a compatible and an
//    informational edit in each of several parts of the document) and an identical copy;
//  - in-process compare time, runs alternating (ours, peer, ours, peer, …) on fresh clones (the
//    peer changes its inputs, so each run gets its own), median and min–max, and the ratio of medians;
//  - what each reports for the edits: breaking / other counts, and whether the inputs were changed;
//  - the whole command `marketapi-diff OLD NEW` (process start, YAML parse, diff, output), median.
// Prints Markdown tables for the README.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "yaml";
import { diffDocuments, type OpenApiDocument } from "../src/index.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const repoDir = join(packageDir, "..", "..");
const RUNS = 31;
const COMMAND_RUNS = 9;

const { ensureTool } = (await import(pathToFileURL(join(repoDir, "scripts", "tools.mjs")).href)) as {
  ensureTool(name: string): string;
};
const peerDir = ensureTool("api-smart-diff");
const peerEntry = createRequire(join(peerDir, "package.json")).resolve("api-smart-diff");
const { apiCompare } = (await import(pathToFileURL(peerEntry).href)) as {
  apiCompare(a: unknown, b: unknown): { diffs: { type: string }[] };
};

const spec: OpenApiDocument = parse(readFileSync(join(repoDir, "specs", "spot-api.openapi.yaml"), "utf8"));

/** The edits: each kind of part the rules cover, some of them in shared components. */
function edited(): OpenApiDocument {
  const d = structuredClone(spec);
  d.info.version = "2.0.0";
  const aggTrades = d.paths["/api/v3/aggTrades"].get;
  aggTrades.parameters.find((p: { name?: string }) => p.name === "fromId").required = true;
  aggTrades.parameters.push({ name: "hint", in: "query", schema: { type: "string" } });
  d.paths["/api/v3/ping"].get["x-auth-class"] = "trade";
  d.paths["/api/v3/time"].get["x-weight"] = 2;
  d.paths["/api/v3/order"].post["x-mutually-exclusive"] = [["price", "quoteOrderQty"]];
  d.paths["/api/v3/order"].post["x-order-type-rules"].MARKET.forbidden.push("newClientOrderId");
  d.components.securitySchemes.signature["x-signing"].algorithm = "HMAC-SHA512";
  d.components.schemas.OrderSide.enum.push("HOLD");
  delete d.paths["/api/v3/avgPrice"];
  return d;
}
const changed = edited();

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;

function timeCompare(pair: [OpenApiDocument, OpenApiDocument]) {
  const ours: number[] = [];
  const peer: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    for (const [who, times] of [
      ["ours", ours],
      ["peer", peer],
    ] as const) {
      const a = structuredClone(pair[0]);
      const b = structuredClone(pair[1]);
      const started = performance.now();
      if (who === "ours") diffDocuments(a, b);
      else apiCompare(a, b);
      times.push(performance.now() - started);
    }
  }
  return { ours, peer };
}

const rows: string[] = [];
for (const [label, pair] of [
  ["identical copy", [spec, structuredClone(spec)]],
  ["edited copy (10 edits)", [spec, changed]],
] as const) {
  const { ours, peer } = timeCompare(pair as [OpenApiDocument, OpenApiDocument]);
  rows.push(
    `| ${label} | ${ms(median(ours))} (${ms(Math.min(...ours))}–${ms(Math.max(...ours))}) | ${ms(median(peer))} (${ms(Math.min(...peer))}–${ms(Math.max(...peer))}) | ${(median(peer) / median(ours)).toFixed(2)} |`,
  );
}

const ourChanges = diffDocuments(spec, changed);
const peerInputs = [structuredClone(spec), structuredClone(changed)];
const peerSnapshot = structuredClone(peerInputs);
const peerChanges = apiCompare(peerInputs[0], peerInputs[1]).diffs;
const count = (list: { type?: string; class?: string }[], cls: string) =>
  list.filter((c) => (c.class ?? c.type) === cls).length;

const work = mkdtempSync(join(tmpdir(), "marketapi-diff-bench-"));
const files = {
  yaml: [join(work, "old.yaml"), join(work, "new.yaml")],
  json: [join(work, "old.json"), join(work, "new.json")],
};
writeFileSync(files.yaml[0]!, readFileSync(join(repoDir, "specs", "spot-api.openapi.yaml")));
writeFileSync(files.yaml[1]!, stringify(changed));
writeFileSync(files.json[0]!, JSON.stringify(spec, null, 2));
writeFileSync(files.json[1]!, JSON.stringify(changed, null, 2));
const command = { yaml: [] as number[], json: [] as number[] };
for (let i = 0; i < COMMAND_RUNS; i++) {
  for (const format of ["yaml", "json"] as const) {
    const started = performance.now();
    const run = spawnSync(
      process.execPath,
      [join(packageDir, "bin", "marketapi-diff.js"), ...files[format]],
      {
        encoding: "utf8",
      },
    );
    command[format].push(performance.now() - started);
    if (run.status !== 1) throw new Error(`marketapi-diff exited ${run.status}, want 1:\n${run.stderr}`);
  }
}
rmSync(work, { recursive: true, force: true });
const commandRow = (format: "yaml" | "json") =>
  `| ${format.toUpperCase()} | ${ms(median(command[format]))} (${ms(Math.min(...command[format]))}–${ms(Math.max(...command[format]))}) |`;

console.log(`### Compare time, full spec (${Object.keys(spec.paths).length} paths), median of ${RUNS} alternating runs (min–max)

| documents | @marketapi/diff | api-smart-diff 1.0.6 | peer / ours |
| --- | --- | --- | --- |
${rows.join("\n")}

### What each reports for the 10 edits

| | @marketapi/diff | api-smart-diff 1.0.6 |
| --- | --- | --- |
| breaking | ${count(ourChanges, "breaking")} | ${count(peerChanges, "breaking")} |
| other classes | ${ourChanges.length - count(ourChanges, "breaking")} | ${peerChanges.length - count(peerChanges, "breaking")} |
| inputs changed by the call | ${isDeepStrictEqual(spec, parse(readFileSync(join(repoDir, "specs", "spot-api.openapi.yaml"), "utf8"))) ? "no" : "yes"} | ${isDeepStrictEqual(peerInputs, peerSnapshot) ? "no" : "yes"} |

### The whole command, \`marketapi-diff OLD NEW\` on the edited copy (Node start, parse, check, diff, output), median of ${COMMAND_RUNS} (min–max)

| documents as | time |
| --- | --- |
${commandRow("yaml")}
${commandRow("json")}`);
