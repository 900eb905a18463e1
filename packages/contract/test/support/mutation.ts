/**
 * Runs the tester against the reference server behind a fault-injecting proxy.
 *
 * A full run (every check, about 800 requests) costs about ten times what a run of the checks
 * that must catch the fault costs, and a catalog of a hundred faults made the mutation suites
 * the slowest of the repository. So each fault is judged in up to two runs, driven by its data
 * alone (`caughtBy`), nothing listed by hand:
 *
 * - a focused run: only the checks of `caughtBy` and those that claim the fault in their
 *   `seenToCatch`. It answers the suite's questions, "does one of `caughtBy` fail on this fault,
 *   and does every check that claims it?", with the checks' full power;
 * - a full run, when the focused one does not catch the fault: some checks judge what other
 *   checks' requests left behind (all_orders pages need the orders the trading phase placed), so
 *   a miss is confirmed or refuted by the run a user makes, never reported on a focused run alone.
 *
 * What a focused run cannot show is a check stopped or masked by the others in a full run;
 * `fullRunSample` picks one fault for each check (the first of the catalog naming it first in
 * `caughtBy`), and the suites run those in full. `MUTATION_RUN=full` runs every fault in full
 * (the suites as they were before, for a bench or before a release: about ten times the time).
 *
 * The default run of mutations.test.ts judges a seeded, stratified sample of the catalog
 * (`defaultSample`): every check's full-run fault, a fault of every check's `seenToCatch`, and a
 * `SAMPLE_SHARE` of the rest of each check's faults; of the full-run sample, that share runs in full, at least
 * one of each group of the catalog (`defaultFullRuns`). `MUTATION_SAMPLE=all` (or `npm run
 * test:full` at the root) judges every fault and runs the whole full-run sample in full;
 * `MUTATION_SEED=<n>` draws another sample.
 */
import { createHash } from "node:crypto";
import { CHECKS } from "../../src/checks/index.js";
import type { CheckName, ContractOptions, ContractResult } from "../../src/index.js";
import { isCheckName } from "../../src/result.js";
import { type Fault, startFaultProxy } from "./fault-proxy.js";
import { runContract } from "./run.js";
import { startReferenceServer } from "./server.js";

/** focused: only the fault's `caughtBy` checks; full: every check, as a user's run. */
export type RunScope = "focused" | "full";

export interface MutationOutcome {
  fault: string;
  caught: boolean;
  /** Checks that failed (any of them). */
  failedChecks: string[];
  exitCode: number;
  result: ContractResult;
  /** The run that decided the outcome. */
  scope: RunScope;
}

/**
 * The checks a focused run of this fault runs: its `caughtBy` and the checks that claim it; a
 * name that is no check fails here, not silently.
 */
export function focusedChecks(fault: Fault): CheckName[] {
  const unknown = fault.caughtBy.filter((name) => !isCheckName(name));
  if (unknown.length > 0) {
    throw new Error(`fault ${fault.name}: caughtBy names no check: ${unknown.join(", ")}`);
  }
  return [...new Set([...fault.caughtBy, ...claimedBy(fault.name)])] as CheckName[];
}

export async function runAgainstFault(
  fault: Fault | undefined,
  options: {
    seed?: number;
    timeoutMs?: number;
    spec?: ContractOptions["spec"];
    scope?: RunScope;
    /** The checks to run, for a test of some checks (a run of some checks is a focused one). */
    only?: readonly CheckName[];
  } = {},
): Promise<MutationOutcome> {
  const only = options.only ?? (options.scope === "focused" && fault ? focusedChecks(fault) : undefined);
  const scope: RunScope = only ? "focused" : "full";
  const server = await startReferenceServer();
  const proxy = await startFaultProxy(server.url, fault);
  try {
    const result = await runContract({
      baseUrl: proxy.url,
      apiKey: server.credentials.apiKey,
      apiSecret: server.credentials.apiSecret,
      secondApiKey: server.second.apiKey,
      secondApiSecret: server.second.apiSecret,
      allowTrading: true,
      referenceExtras: true,
      seed: options.seed ?? 7,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.spec ? { spec: options.spec } : {}),
      ...(only ? { only: [...only] } : {}),
    });
    const failedChecks: string[] = [
      ...new Set(result.cells.filter((c) => c.status === "failed").map((c) => c.check)),
    ];
    const caught =
      fault !== undefined && result.exitCode === 1 && fault.caughtBy.some((c) => failedChecks.includes(c));
    return { fault: fault?.name ?? "(none)", caught, failedChecks, exitCode: result.exitCode, result, scope };
  } finally {
    await proxy.close();
    await server.close();
  }
}

/** `MUTATION_RUN=full` judges every fault in a full run only. */
export const everyFaultInFull = process.env.MUTATION_RUN === "full";

/**
 * A focused run, then a full run if the focused one did not catch the fault or a check that
 * claims it did not fail (see above).
 */
export async function judgeFault(fault: Fault): Promise<MutationOutcome> {
  if (everyFaultInFull) return runAgainstFault(fault, { scope: "full" });
  const focused = await runAgainstFault(fault, { scope: "focused" });
  const decided = focused.caught && unseenCatches(focused).length === 0;
  return decided ? focused : runAgainstFault(fault, { scope: "full" });
}

/**
 * One fault per check, for full runs: for each check in the order the catalog first names it as
 * the first of a `caughtBy`, the first fault that does. A check added with its faults joins the
 * sample without an edit here.
 */
export function fullRunSample(catalog: readonly Fault[]): Fault[] {
  const byCheck = new Map<string, Fault>();
  for (const fault of catalog) {
    const first = fault.caughtBy[0];
    if (first !== undefined && !byCheck.has(first)) byCheck.set(first, fault);
  }
  return [...byCheck.values()];
}

/** `MUTATION_SAMPLE=all`: judge every fault of the catalog, not the default sample. */
export const everyFault = process.env.MUTATION_SAMPLE === "all";

/** The seed of the default sample (`MUTATION_SEED`, default 1). */
export const sampleSeed = Number(process.env.MUTATION_SEED ?? "1");

/**
 * Of each check's faults beyond those always judged, the share the default sample draws: none, so
 * that CI stays under 30 minutes (a third made the catalog's suite 22 minutes of a 31-minute CI).
 * The whole catalog is judged before a release (`npm run test:full`), and a seed of its own
 * (`MUTATION_SEED`) draws other claims.
 */
export const SAMPLE_SHARE = 0;

/**
 * A fault's place in the draw: a hash of the seed and its name alone, so a fault added to the
 * catalog does not reshuffle the others' places.
 */
function drawRank(seed: number, fault: Fault): string {
  return createHash("sha256").update(`${seed}:${fault.name}`).digest("hex");
}

/**
 * The faults a default run judges, in catalog order: stratified by the check a fault names first.
 * Always in: the full-run sample (one fault of each check) and, for every check that claims
 * faults in its `seenToCatch`, one of them (so every claim is seen to hold on some fault); then,
 * within each check's faults, the first `SAMPLE_SHARE` (rounded up) of the rest by `drawRank`.
 */
export function defaultSample(catalog: readonly Fault[], seed: number = sampleSeed): Fault[] {
  const inCatalog = new Set(catalog.map((f) => f.name));
  const picked = new Set(fullRunSample(catalog).map((f) => f.name));
  const byRank = (a: Fault, b: Fault) => (drawRank(seed, a) < drawRank(seed, b) ? -1 : 1);
  for (const check of CHECKS) {
    const claims = catalog.filter((f) => check.seenToCatch.includes(f.name) && inCatalog.has(f.name));
    if (claims.length > 0 && !claims.some((f) => picked.has(f.name))) {
      picked.add([...claims].sort(byRank)[0]!.name);
    }
  }
  const strata = new Map<string, Fault[]>();
  for (const fault of catalog) {
    const first = fault.caughtBy[0] ?? "";
    strata.set(first, [...(strata.get(first) ?? []), fault]);
  }
  for (const faults of strata.values()) {
    const rest = faults.filter((f) => !picked.has(f.name)).sort(byRank);
    for (const fault of rest.slice(0, Math.ceil(rest.length * SAMPLE_SHARE))) picked.add(fault.name);
  }
  return catalog.filter((f) => picked.has(f.name));
}

/**
 * The faults of the full-run sample that a default run judges in a full run: `SAMPLE_SHARE` of them
 * (rounded up) by `drawRank`, and at least one of each group of the catalog (its source files:
 * shapes, behaviour, relations, ...). The others are judged like any fault of the sample.
 */
export function defaultFullRuns(groups: readonly (readonly Fault[])[], seed: number = sampleSeed): Fault[] {
  const catalog = groups.flat();
  const byRank = (a: Fault, b: Fault) => (drawRank(seed, a) < drawRank(seed, b) ? -1 : 1);
  const everyCheck = fullRunSample(catalog);
  const picked = new Set(everyCheck.sort(byRank).slice(0, Math.ceil(everyCheck.length * SAMPLE_SHARE)));
  for (const group of groups) {
    const own = everyCheck.filter((f) => group.includes(f));
    if (own.length > 0 && !own.some((f) => picked.has(f))) picked.add(own[0]!);
  }
  return catalog.filter((f) => picked.has(f));
}

/**
 * The judgement of a fault of the full-run sample, from its full run: caught there, and every
 * check that claims it failed, in that run or else in a focused run (as judgeFault would have
 * decided it). One full run answers both questions the suite asks of these faults, where a
 * focused run and a full run each used to.
 */
export async function judgeInFull(fault: Fault): Promise<{ full: MutationOutcome; claims: MutationOutcome }> {
  const full = await runAgainstFault(fault, { scope: "full" });
  if (!full.caught || unseenCatches(full).length === 0) return { full, claims: full };
  return { full, claims: await runAgainstFault(fault, { scope: "focused" }) };
}

/** The summary the suites print: the rate, then one line per fault with the run that decided it. */
export function catchReport(title: string, outcomes: readonly MutationOutcome[]): string {
  const caught = outcomes.filter((o) => o.caught).length;
  const width = Math.max(0, ...outcomes.map((o) => o.fault.length));
  const lines = outcomes.map(
    (o) =>
      `  ${o.caught ? "caught " : "MISSED "} ${o.fault.padEnd(width)}  ${o.scope.padEnd(7)}  failed checks: ${o.failedChecks.join(", ")}`,
  );
  const rate = outcomes.length > 0 ? ((100 * caught) / outcomes.length).toFixed(0) : "0";
  return `${title}: ${caught}/${outcomes.length} (${rate} %)\n${lines.join("\n")}`;
}

/** The checks that name `fault` as one they are seen to catch (ContractCheck.seenToCatch). */
export function claimedBy(fault: string): string[] {
  return CHECKS.filter((check) => check.seenToCatch.includes(fault)).map((check) => check.name);
}

/** The checks that claim to catch the outcome's fault but did not fail on it. */
export function unseenCatches(outcome: MutationOutcome): string[] {
  return claimedBy(outcome.fault).filter((check) => !outcome.failedChecks.includes(check));
}
