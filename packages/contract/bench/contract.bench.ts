/**
 * Wall time of a full default run against the embedded reference server (median of 3), and the
 * request rate the tester sustains: in the full run, and in a generation-heavy run
 * (response-level checks only, 2000 requests). Prints a Markdown table for the README.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type ContractOptions, runContract } from "../src/index.js";

interface Sample {
  wallMs: number;
  requests: number;
  rps: number;
  exitCode: number;
}

async function sample(options: ContractOptions): Promise<Sample> {
  const started = performance.now();
  const result = await runContract({ seed: 1, ...options });
  const wallMs = performance.now() - started;
  return {
    wallMs,
    requests: result.stats.requests,
    rps: result.stats.requests / (wallMs / 1000),
    exitCode: result.exitCode,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function measure(label: string, options: ContractOptions, runs = 3): Promise<string> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i += 1) samples.push(await sample(options));
  const failed = samples.filter((s) => s.exitCode !== 0);
  if (failed.length > 0)
    throw new Error(`${label}: exit ${failed[0]!.exitCode}; the benchmark needs a passing run`);
  const wall = median(samples.map((s) => s.wallMs));
  const rps = median(samples.map((s) => s.rps));
  const all = samples.map((s) => `${(s.wallMs / 1000).toFixed(2)}`).join(" / ");
  return `| ${label} | ${samples[0]!.requests} | ${(wall / 1000).toFixed(2)} s (${all}) | ${Math.round(rps)} |`;
}

/** The command as users run it: a fresh process, module loading and embedded server start included. */
function measureCli(runs = 3): string | undefined {
  const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
  if (!existsSync(cli)) return undefined;
  const walls: number[] = [];
  let requests = 0;
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [cli, "--seed", "1", "--json"], { encoding: "utf8" });
    walls.push(performance.now() - started);
    if (run.status !== 0) throw new Error(`marketapi-contract exited ${run.status}: ${run.stderr}`);
    requests = (JSON.parse(run.stdout) as { stats: { requests: number } }).stats.requests;
  }
  const wall = median(walls);
  const all = walls.map((w) => (w / 1000).toFixed(2)).join(" / ");
  return `| \`marketapi-contract\` (new process, no arguments) | ${requests} | ${(wall / 1000).toFixed(2)} s (${all}) | ${Math.round(requests / (wall / 1000))} |`;
}

const rows = [
  await measure("full default run (embedded server, all checks)", {}),
  await measure("response-level checks only, --max-requests 2000", {
    only: [
      "not_a_server_error",
      "status_code_conformance",
      "content_type_conformance",
      "response_schema_conformance",
      "response_headers_conformance",
    ],
    maxRequests: 2000,
  }),
];
const cliRow = measureCli();
if (cliRow) rows.push(cliRow);

console.log(
  `Node ${process.version}, ${availableParallelism()} CPUs, seed 1, median of 3 runs (each run's wall time in brackets)\n`,
);
console.log("| run | requests | wall time (median) | requests/s |");
console.log("|---|---:|---:|---:|");
for (const row of rows) console.log(row);
