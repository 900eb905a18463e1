/**
 * The contract tester measured on faults nobody picked: mutation testing of the reference
 * server's engine and HTTP layer. A seeded sample of mutants of the server's source (as it is
 * when the bench runs; bench/mutants/operators.ts), each loaded into a server process of its
 * own in place of the built file; each tester given with --tester is run as a black box against
 * it by URL; a non-zero exit kills the mutant. Survivors are judged again by the server's own
 * tests, and by V8 coverage of the unmutated server under each tester (was the code reached at
 * all?); what no server test kills is classified by hand in bench/mutants/equivalents.json.
 *
 *   nice -n 10 npx tsx bench/mutants.bench.ts [--scope memory|state] [--count 330] [--seed 1]
 *     [--jobs 1] [--tester NAME=PATH/cli.js ...] [--tester-seed 1] [--out FILE] [--no-server-tests]
 *     [--survivors-of NAME] [--only FILE:LINE ...] [--part TEXT]
 *
 * --part TEXT draws the sample from the mutants of one part of the server alone (summary.ts:
 * PARTS, whose name contains TEXT, e.g. `load` for "HTTP: load and connections"), so that a part
 * gets a sample of its own size; give it an --out of its own.
 *
 * --only FILE:LINE (repeatable) tries only the sampled mutants whose id (`file:line:column operator`)
 * contains one of the texts (`rate-limits.ts:113`, `stats.ts`); give it an --out of its own, since the
 * results file then holds only those.
 *
 * --survivors-of NAME tries the other testers only on the mutants tester NAME did not kill (it
 * must be listed first); a kill of NAME is carried to them, marked so (a tester that adds checks
 * to NAME's keeps its kills), and the tables say how many were carried. A run without it tries
 * carried trials for real.
 *
 * The scope says which of the server's folders are mutated and how the server runs (SCOPES):
 * `memory`, the engine and the HTTP layer with the server in memory; `state`, the SQLite store
 * with the server on --state FILE. Every server also has a second account, whose key reaches the
 * tester in MARKETAPI_SECOND_API_KEY and MARKETAPI_SECOND_API_SECRET (a tester that does not
 * read them runs as before).
 *
 * Results are saved after each mutant to --out (default .mutants/results-<scope>-seed<S>.json,
 * and results-seed<S>.json for the memory scope) and a run resumes from them: trials already
 * there for the same mutant and tester are not redone, except those that timed out with no check
 * failed (summary.ts: timedOut), which decided nothing.
 *
 * Two populations, by the part of the server a mutant is in (summary.ts: partOf). The mutants of
 * the load layer ("HTTP: load and connections": rate limits, backpressure, connections, protocol
 * edges) are tried as a user who tests a server's limits runs the tester: the server enforces the
 * live API's limits (`--live-limits`: 6000 weight a minute, 50 orders in 10 s, 61,000 requests in 5
 * minutes, a ban after 10 refusals), with the first ban 2 s long instead of 2 minutes (LOAD_CONFIG:
 * the phase waits out whatever the server asks, and a ban's length is the server's choice), and
 * the tester runs with `--load`, which reaches them on purpose. Against the default limits (a
 * million weight a minute) the load phase cannot reach the limit in a bounded run and skips, so
 * none of that code would be judged. Every other mutant is tried against the server's defaults
 * and the tester's default run. Each population has its own null run (coverage, and the proof
 * that the tester passes the unmutated server so configured).
 *
 * The state population is tried as a user who tests durability runs the tester (testServer): the
 * default run with --remember FILE, then kill -9 of the server, the same mutant started again on
 * the same state file, then `marketapi-contract recall FILE`; a failure of either kills the mutant.
 * Its servers have the sandbox's admin surface (--admin-port), which recall is given
 * (MARKETAPI_ADMIN_URL, MARKETAPI_ADMIN_TOKEN) to judge snapshots taken and restored over HTTP.
 *
 * Equivalent mutants (no behaviour a client can observe changes, on the server as the bench runs
 * it) are listed in bench/mutants/equivalents.json, keyed by the mutant's key, each with why.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Coverage } from "./mutants/coverage.js";
import { applyMutant } from "./mutants/operators.js";
import {
  type MutantServer,
  runCustody,
  runRecall,
  runTester,
  type ServerLaunch,
  startServer,
  type TesterVerdict,
} from "./mutants/processes.js";
import {
  drawSample,
  PackageCompiler,
  population,
  type ReadyMutant,
  sourceFiles,
  staleFiles,
} from "./mutants/sample.js";
import { runServerTests, SERVER_TESTS, type ServerTestVerdict } from "./mutants/server-tests.js";
import { partOf, summarise, timedOut } from "./mutants/summary.js";

const here = dirname(fileURLToPath(import.meta.url));
const contractDir = resolve(here, "..");
/** What each scope mutates, and how its servers run. */
export const SCOPES = {
  memory: { folders: ["src/engine", "src/http"], state: false },
  state: { folders: ["src/store"], state: true },
} as const;
type ScopeName = keyof typeof SCOPES;
/** The second account every server of the bench has (the server's --api-key, --api-secret). */
const SECOND_ACCOUNT = { apiKey: "mutants-second-key", apiSecret: "mutants-second-secret" };

const { values } = parseArgs({
  options: {
    scope: { type: "string", default: "memory" },
    count: { type: "string", default: "330" },
    seed: { type: "string", default: "1" },
    jobs: { type: "string", default: "1" },
    tester: { type: "string", multiple: true },
    "tester-seed": { type: "string", default: "1" },
    out: { type: "string" },
    "no-server-tests": { type: "boolean", default: false },
    "summary-only": { type: "boolean", default: false },
    "survivors-of": { type: "string" },
    only: { type: "string", multiple: true },
    part: { type: "string" },
  },
});
if (!(values.scope! in SCOPES))
  throw new Error(`--scope takes ${Object.keys(SCOPES).join(" or ")}, got ${values.scope}`);
const scopeName = values.scope as ScopeName;
const scope = SCOPES[scopeName];
const FOLDERS = scope.folders;
const count = Number(values.count);
const seed = Number(values.seed);
const jobs = Math.max(1, Number(values.jobs));
const testerSeed = Number(values["tester-seed"]);
const testers = (values.tester ?? [`current=${join(contractDir, "dist", "cli.js")}`]).map((spec) => {
  const at = spec.indexOf("=");
  if (at <= 0) throw new Error(`--tester takes NAME=PATH, got ${spec}`);
  return { name: spec.slice(0, at), cli: resolve(spec.slice(at + 1)) };
});
const scratchRoot = join(contractDir, ".mutants");
const out = resolve(
  values.out ??
    join(
      scratchRoot,
      scopeName === "memory" ? `results-seed${seed}.json` : `results-${scopeName}-seed${seed}.json`,
    ),
);

/** The mutants of the part whose name contains `text` (--part; all without it). */
function ofPart<M extends { file: string }>(mutants: readonly M[], text: string | undefined): readonly M[] {
  if (text === undefined) return mutants;
  const names = new Set(mutants.map((m) => partOf(m.file)).filter((name) => name.includes(text)));
  if (names.size !== 1)
    throw new Error(
      `--part ${text}: names ${names.size === 0 ? "no part" : [...names].join(", ")}; give one part`,
    );
  return mutants.filter((m) => names.has(partOf(m.file)));
}

/** The mutants --only names (all without it): those whose file:line:column contains one of the texts. */
function chosen<M extends { id: string }>(
  mutants: readonly M[],
  only: readonly string[] | undefined,
): readonly M[] {
  if (!only || only.length === 0) return mutants;
  const picked = mutants.filter((m) => only.some((text) => m.id.includes(text)));
  if (picked.length === 0) throw new Error(`--only ${only.join(", ")}: no sampled mutant is at such a place`);
  return picked;
}

/**
 * How a population's servers and testers run. `load`: the live API's limits with a short first
 * ban, and the tester's --load phase (a paced run at 6000 weight a minute takes about 80 s, the
 * load phase up to a minute more, waiting for the weight window to end).
 */
const POPULATIONS = {
  default: { serverArgs: [] as string[], testerArgs: [] as string[], limitMs: 240_000 },
  load: { serverArgs: ["--live-limits"], testerArgs: ["--load"], limitMs: 420_000 },
} as const;
type PopulationName = keyof typeof POPULATIONS;
/** Over --live-limits: the first ban lasts 2 s (the live API's is 2 minutes). */
const LOAD_CONFIG = { rateLimits: { banSeconds: 2 } };
/** The part of the server whose mutants are tried in the load population. */
const LOAD_PART = "HTTP: load and connections";

function populationOf(mutant: { file: string }): PopulationName {
  return partOf(mutant.file) === LOAD_PART ? "load" : "default";
}

/**
 * The server's arguments in this scope and population: the second account, a state file in the
 * trial's scratch folder, the load population's limits.
 */
function serverArgs(scratch: string, population: PopulationName): string[] {
  const load = population === "load" ? join(scratch, "load-config.json") : undefined;
  if (load) writeFileSync(load, JSON.stringify(LOAD_CONFIG));
  return [
    "--api-key",
    SECOND_ACCOUNT.apiKey,
    "--api-secret",
    SECOND_ACCOUNT.apiSecret,
    // On --state the sandbox's admin surface too: recall judges its snapshots (a restore
    // swaps the state file for a checked copy of a backup, through the store's own paths).
    ...(scope.state ? ["--state", join(scratch, "state.db"), "--admin-port", "0"] : []),
    ...POPULATIONS[population].serverArgs,
    ...(load ? ["--config", load] : []),
  ];
}
const SERVER_TESTS_LIMIT_MS = 600_000;

export interface Trial {
  tester: string;
  verdict?: TesterVerdict;
  /** Times the mutated code ran in the unmutated server under this tester (V8 coverage). */
  reached: number;
}

export interface MutantRecord {
  key: string;
  id: string;
  file: string;
  operator: string;
  line: number;
  original: string;
  replacement: string;
  scope: string;
  stillborn?: string;
  trials: Trial[];
  serverTests?: ServerTestVerdict;
}

export interface Results {
  /** The scope (SCOPES) and the server folders it samples. */
  scope?: string;
  folders?: string[];
  seed: number;
  count: number;
  population: number;
  drawn: number;
  rejectedByCompiler: number;
  unchangedOutput: number;
  /** Each tester's null runs: against the default server, and the load population's (when tried). */
  testers: Array<{ name: string; cli: string; nullRun: TesterVerdict; loadNullRun?: TesterVerdict }>;
  mutants: MutantRecord[];
}

const serverDir = dirname(
  createRequire(join(contractDir, "package.json")).resolve("@marketapi/reference-server/package.json"),
);
const serverCli = join(serverDir, "dist", "cli.js");
mkdirSync(scratchRoot, { recursive: true });

function load(): Results | undefined {
  try {
    return JSON.parse(readFileSync(out, "utf8")) as Results;
  } catch {
    return undefined;
  }
}

function save(results: Results): void {
  writeFileSync(out, `${JSON.stringify(results, null, 1)}\n`);
}

async function coverageRun(
  cli: string,
  population: PopulationName,
): Promise<{ verdict: TesterVerdict; coverage: Coverage }> {
  const scratch = mkdtempSync(join(scratchRoot, "null-"));
  const { testerArgs, limitMs } = POPULATIONS[population];
  const coverageDir = join(scratch, "coverage");
  try {
    const launch: ServerLaunch = {
      cli: serverCli,
      scratch,
      coverageDir,
      startTimeoutMs: 60_000,
      args: serverArgs(scratch, population),
    };
    const started = await startServer(launch);
    if (!started.ok) throw new Error(`the unmutated server did not start: ${started.reason}`);
    const verdict = await testServer(launch, started.server, cli, scratch, testerArgs, limitMs);
    const coverage = new Coverage(coverageDir);
    if (coverage.cutShort.length > 0)
      console.log(
        `null run: ${coverage.cutShort.length} coverage file(s) cut short (a full disk or a kill at exit), not counted`,
      );
    return { verdict, coverage };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** How long the recall after a restart may take (it reads back every order of the run twice). */
const RECALL_LIMIT_MS = 180_000;

/**
 * The tester's run against a started server, then, where it passed, `custody` (the operator's
 * judgement: the tester starts the mutant server itself on --state files of its own, and stops
 * it with SIGTERM among other things), in either population: the whole tester. On --state (the
 * state scope) as a user who tests durability runs it: the default run with --remember, then kill
 * -9 of the server, the same server started again on the same state file, then `recall`; a
 * failure of any is a kill, and so is a server that cannot start again on its own state.
 */
async function testServer(
  launch: ServerLaunch,
  server: MutantServer,
  cli: string,
  scratch: string,
  testerArgs: readonly string[],
  limitMs: number,
): Promise<TesterVerdict> {
  const memory = join(scratch, "memory.json");
  const remember = scope.state ? ["--remember", memory] : [];
  const verdict = await runTester(cli, server, testerSeed, limitMs, SECOND_ACCOUNT, [
    ...testerArgs,
    ...remember,
  ]);
  if (server.exitedEarly() && verdict.exitCode === 0) verdict.error = "the server exited during the run";
  if (verdict.exitCode !== 0 || server.exitedEarly()) {
    await server.stop();
    return verdict;
  }
  if (!scope.state) {
    await server.stop();
    return thenCustody(verdict, cli, launch);
  }
  await server.kill();
  const again = await startServer(launch);
  if (!again.ok)
    return {
      ...verdict,
      exitCode: 1,
      failedChecks: ["restart"],
      error: `after kill -9, the server did not start again on its state file: ${again.reason}`,
    };
  const recall = await runRecall(cli, again.server, memory, RECALL_LIMIT_MS);
  await again.server.stop();
  const recalled: TesterVerdict = {
    ...verdict,
    exitCode: recall.exitCode,
    failedChecks: [...verdict.failedChecks, ...recall.failedChecks],
    ...(recall.error ? { error: `recall: ${recall.error}` } : {}),
    wallMs: verdict.wallMs + recall.wallMs,
    recall,
  };
  return recall.exitCode === 0 ? thenCustody(recalled, cli, launch) : recalled;
}

/** A verdict that passed, with custody's after it (a tester build without custody: as it was). */
async function thenCustody(passed: TesterVerdict, cli: string, launch: ServerLaunch): Promise<TesterVerdict> {
  if (!withCustody(cli)) return passed;
  const custody = await runCustody(cli, launch, CUSTODY_LIMIT_MS);
  return {
    ...passed,
    exitCode: custody.exitCode,
    failedChecks: [...passed.failedChecks, ...custody.failedChecks],
    ...(custody.error ? { error: `custody: ${custody.error}` } : {}),
    ...(custody.findings ? { findings: custody.findings } : {}),
    wallMs: passed.wallMs + custody.wallMs,
    custody,
  };
}

/** How long `custody` may take (it starts the server about twenty times). */
const CUSTODY_LIMIT_MS = 240_000;

/** Whether a tester build has the custody command (builds before it answer usage errors). */
function withCustody(cli: string): boolean {
  return existsSync(join(dirname(cli), "custody.js"));
}

async function trial(mutant: ReadyMutant, cli: string): Promise<TesterVerdict | { stillborn: string }> {
  const scratch = mkdtempSync(join(scratchRoot, "m-"));
  const population = populationOf(mutant);
  const { testerArgs, limitMs } = POPULATIONS[population];
  try {
    const launch: ServerLaunch = {
      cli: serverCli,
      scratch,
      mutant: { distFile: mutant.distFile, js: mutant.js },
      startTimeoutMs: 60_000,
      args: serverArgs(scratch, population),
    };
    const started = await startServer(launch);
    if (!started.ok) return { stillborn: started.reason };
    return await testServer(launch, started.server, cli, scratch, testerArgs, limitMs);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function judgeSurvivors(mutants: readonly ReadyMutant[], results: Results): Promise<void> {
  const records = new Map(results.mutants.map((r) => [r.key, r]));
  const survivors = mutants.filter((m) => {
    const record = records.get(m.key);
    return (
      record &&
      !record.stillborn &&
      !record.serverTests &&
      record.trials.some((t) => t.verdict?.exitCode === 0)
    );
  });
  let judged = 0;
  await pool(survivors, jobs, async (mutant) => {
    const record = records.get(mutant.key)!;
    const scratch = mkdtempSync(join(scratchRoot, "t-"));
    try {
      const source = applyMutant(readFileSync(join(serverDir, mutant.file), "utf8"), mutant);
      record.serverTests = await runServerTests(
        serverDir,
        { file: mutant.file, source },
        scratch,
        SERVER_TESTS,
        SERVER_TESTS_LIMIT_MS,
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const verdict = record.serverTests.killed
      ? `killed (${record.serverTests.failing ?? `exit ${record.serverTests.exitCode}`})`
      : "pass";
    judged += 1;
    console.error(`[server tests ${judged}/${survivors.length}] ${mutant.id}: ${verdict}`);
    save(results);
  });
}

async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** --survivors-of NAME: a mutant that tester killed is not tried again; its kill is carried to the others. */
const carrier = values["survivors-of"];

function killedBy(record: MutantRecord, tester: string): TesterVerdict | undefined {
  const verdict = record.trials.find((t) => t.tester === tester)?.verdict;
  return verdict && verdict.exitCode !== 0 && !timedOut(verdict) && !verdict.carriedFrom
    ? verdict
    : undefined;
}

async function main(): Promise<void> {
  const previous = load();
  if (values["summary-only"]) {
    if (!previous) throw new Error(`no results in ${out}`);
    console.log(summarise(previous, join(here, "mutants", "equivalents.json")));
    return;
  }
  const compiler = new PackageCompiler(serverDir);
  const stale = staleFiles(compiler, sourceFiles(serverDir, FOLDERS));
  if (stale.length > 0) {
    throw new Error(
      `the reference server's dist is not built from its source (${stale.slice(0, 5).join(", ")}): run npx turbo run build --filter=@marketapi/reference-server`,
    );
  }
  const started = performance.now();
  const cachePath = join(scratchRoot, "compiled.json");
  const compiled = new Map<string, boolean>(
    Object.entries(
      (() => {
        try {
          return JSON.parse(readFileSync(cachePath, "utf8")) as Record<string, boolean>;
        } catch {
          return {};
        }
      })(),
    ),
  );
  const sample = drawSample(
    compiler,
    ofPart(population(serverDir, FOLDERS), values.part),
    seed,
    count,
    compiled,
  );
  writeFileSync(cachePath, JSON.stringify(Object.fromEntries(compiled)));
  console.error(
    `sample: ${sample.mutants.length} mutants of ${sample.population} (seed ${seed}; ${sample.drawn} drawn, ${sample.rejectedByCompiler} rejected by the compiler, ${sample.unchangedOutput} changing no emitted code)`,
  );

  const results: Results = {
    scope: scopeName,
    folders: [...FOLDERS],
    seed,
    count,
    population: sample.population,
    drawn: sample.drawn,
    rejectedByCompiler: sample.rejectedByCompiler,
    unchangedOutput: sample.unchangedOutput,
    testers: [],
    mutants: [],
  };
  const tried = chosen(sample.mutants, values.only);
  const populations = [...new Set(tried.map(populationOf))].sort();
  /** Coverage of the unmutated server under each tester, by population ("tester/population"). */
  const coverages = new Map<string, Coverage>();
  for (const tester of testers) {
    const runs: Partial<Record<PopulationName, TesterVerdict>> = {};
    for (const population of populations) {
      const { verdict, coverage } = await coverageRun(tester.cli, population);
      if (verdict.exitCode !== 0) {
        throw new Error(
          `tester ${tester.name} does not pass the unmutated server (${population} population; exit ${verdict.exitCode}: ${verdict.error ?? verdict.failedChecks.join(", ")}); its kills would mean nothing`,
        );
      }
      runs[population] = verdict;
      coverages.set(`${tester.name}/${population}`, coverage);
      console.error(
        `tester ${tester.name}: passes the unmutated server, ${population} population (${verdict.requests} requests, ${(verdict.wallMs / 1000).toFixed(1)} s)`,
      );
    }
    results.testers.push({
      name: tester.name,
      cli: tester.cli,
      nullRun: (runs.default ?? runs.load)!,
      ...(runs.load ? { loadNullRun: runs.load } : {}),
    });
  }

  const done = new Map((previous?.mutants ?? []).map((m) => [m.key, m]));
  let finished = 0;
  await pool(tried, jobs, async (mutant) => {
    const before = done.get(mutant.key);
    const record: MutantRecord = {
      key: mutant.key,
      id: mutant.id,
      file: mutant.file,
      operator: mutant.operator,
      line: mutant.line,
      original: mutant.original.slice(0, 200),
      replacement: mutant.replacement,
      scope: mutant.scope,
      trials: [],
      ...(before?.stillborn ? { stillborn: before.stillborn } : {}),
      ...(before?.serverTests ? { serverTests: before.serverTests } : {}),
    };
    for (const tester of testers) {
      const reached = coverages
        .get(`${tester.name}/${populationOf(mutant)}`)!
        .countAt(mutant.distFile, mutant.jsOffset);
      // A trial that timed out with no check failed decided nothing: a resumed run tries it again.
      const earlier = before?.trials.find(
        (t) =>
          t.tester === tester.name &&
          t.verdict &&
          !timedOut(t.verdict) &&
          (carrier !== undefined || t.verdict.carriedFrom === undefined),
      );
      if (record.stillborn) break;
      if (earlier?.verdict) {
        record.trials.push({ tester: tester.name, verdict: earlier.verdict, reached });
        continue;
      }
      const killedBefore =
        carrier !== undefined && tester.name !== carrier ? killedBy(record, carrier) : undefined;
      if (killedBefore) {
        record.trials.push({
          tester: tester.name,
          verdict: { ...killedBefore, carriedFrom: carrier },
          reached,
        });
        continue;
      }
      const outcome = await trial(mutant, tester.cli);
      if ("stillborn" in outcome) {
        record.stillborn = outcome.stillborn;
        break;
      }
      record.trials.push({ tester: tester.name, verdict: outcome, reached });
    }
    results.mutants.push(record);
    finished += 1;
    const verdicts = record.stillborn
      ? "stillborn"
      : record.trials
          .map((t) => `${t.tester} ${t.verdict?.exitCode === 0 ? "survived" : "killed"}`)
          .join(", ");
    console.error(
      `[${finished}/${tried.length}] ${mutant.id} ${JSON.stringify(mutant.original.slice(0, 40))} → ${JSON.stringify(mutant.replacement.slice(0, 20))}: ${verdicts}`,
    );
    save(results);
  });

  // The second judge, once every trial is in: the server's own tests on each survivor.
  if (!values["no-server-tests"]) await judgeSurvivors(sample.mutants, results);
  results.mutants.sort((a, b) => a.key.localeCompare(b.key));
  save(results);
  console.error(`done in ${((performance.now() - started) / 60_000).toFixed(1)} min; results in ${out}`);
  console.log(summarise(results, join(here, "mutants", "equivalents.json")));
}

await main();
