/**
 * The bench's tables: the kill rate of each tester (with a 95 % Wilson interval: the sample is a
 * sample), and where the survivors are, by operator, by module and by why they survived.
 */
import { existsSync, readFileSync } from "node:fs";
import type { MutantRecord, Results } from "../mutants.bench.js";
import type { TesterVerdict } from "./processes.js";

/**
 * A survivor judged by hand: equivalent (no behaviour a client can observe changes, on the server
 * as the bench runs it: left out of the rate), outside the contract (it changes only what the
 * tester's spec does not state: the sandbox document's operations, the server's own protections;
 * counted, and shown apart), or not equivalent (a blind spot of the tester).
 */
export interface HandVerdict {
  verdict: "equivalent" | "outside-contract" | "not-equivalent";
  why: string;
}

export type Fate =
  | "stillborn"
  | "killed"
  | "timed out"
  | "equivalent"
  | "outside the contract"
  | "not reached"
  | "server tests kill it"
  | "survived (judged by hand)"
  | "survived (unclassified)";

export function loadEquivalents(path: string): Record<string, HandVerdict> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, HandVerdict>) : {};
}

export function fateOf(mutant: MutantRecord, tester: string, hand: Record<string, HandVerdict>): Fate {
  if (mutant.stillborn) return "stillborn";
  const trial = mutant.trials.find((t) => t.tester === tester);
  if (!trial?.verdict) return "stillborn";
  if (trial.verdict.exitCode !== 0) return timedOut(trial.verdict) ? "timed out" : "killed";
  const verdict = hand[mutant.key]?.verdict;
  if (verdict === "equivalent") return "equivalent";
  if (verdict === "outside-contract") return "outside the contract";
  if (trial.reached === 0) return "not reached";
  if (mutant.serverTests?.killed) return "server tests kill it";
  return verdict === "not-equivalent" ? "survived (judged by hand)" : "survived (unclassified)";
}

/**
 * The server's parts the kill rate is stated for (the goal: every part at 60 % or more), by the
 * modules each holds; a module of no part shows as "other".
 */
export const PARTS: ReadonlyArray<{ name: string; modules: readonly string[] }> = [
  {
    name: "engine: trade history, statistics, market data",
    modules: ["history-rows", "history", "stats", "market-data", "journal", "candles"],
  },
  {
    name: "engine: orders",
    modules: [
      "book",
      "matching",
      "order-flow",
      "order-ops",
      "settlement",
      "filters",
      "liquidity",
      "stops",
      "symbols",
      "types",
      "accounts",
      "market",
      "exchange",
      "context",
      "create",
    ],
  },
  {
    name: "engine: the rest",
    modules: [
      "client-order-ids",
      "decimal",
      "params",
      "invariants",
      "paging",
      "state",
      "views",
      "random",
      "deprecated",
      "legacy-snapshot",
      "index",
    ],
  },
  {
    name: "HTTP: requests and answers",
    modules: [
      "auth",
      "hmac",
      "params",
      "body",
      "handlers",
      "epoch-time",
      "pipeline",
      "order-json",
      "live-extras",
      "validation",
      "api",
      "router",
    ],
  },
  {
    name: "HTTP: load and connections",
    modules: [
      "backpressure",
      "rate-limits",
      "connections",
      "answer-cache",
      "shutdown",
      "time-unit",
      "request-log",
      "turn-end",
      "fair-share",
      "hold",
      "protocol",
      "reading",
    ],
  },
];

/** The part of the server a mutated file belongs to (src/<folder>/<module>.ts). */
export function partOf(file: string): string {
  const match = /^src\/([^/]+)\/(.+)\.ts$/.exec(file);
  if (!match) return "other";
  const [, folder, module] = match;
  if (folder === "store") return "store";
  const prefix = folder === "engine" ? "engine:" : folder === "http" ? "HTTP:" : undefined;
  const part = PARTS.find((p) => prefix && p.name.startsWith(prefix) && p.modules.includes(module!));
  return part?.name ?? "other";
}

/**
 * A run that hit its time limit with no check failed decides nothing: on a loaded machine the
 * unmutated server's run takes as long. A mutant that makes the server hang fails not_a_server_error.
 */
export function timedOut(verdict: TesterVerdict): boolean {
  return (
    verdict.failedChecks.length === 0 &&
    (verdict.exitCode === null || /^deadline:|^tester killed/.test(verdict.error ?? ""))
  );
}

function wilson(killed: number, n: number): string {
  if (n === 0) return "–";
  const z = 1.96;
  const p = killed / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
  return `${(100 * (centre - half)).toFixed(0)}–${(100 * (centre + half)).toFixed(0)} %`;
}

const percent = (part: number, whole: number) =>
  whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)} %`;

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

interface Tally {
  valid: number;
  killed: number;
  equivalent: number;
  outside: number;
}

function tally(mutants: MutantRecord[], tester: string, hand: Record<string, HandVerdict>): Tally {
  const t: Tally = { valid: 0, killed: 0, equivalent: 0, outside: 0 };
  for (const m of mutants) {
    const fate = fateOf(m, tester, hand);
    if (fate === "stillborn") continue;
    t.valid += 1;
    if (fate === "killed") t.killed += 1;
    if (fate === "equivalent") t.equivalent += 1;
    if (fate === "outside the contract") t.outside += 1;
  }
  return t;
}

const rate = (t: Tally) =>
  `${t.killed}/${t.valid - t.equivalent} (${percent(t.killed, t.valid - t.equivalent)})`;

function byGroup(
  results: Results,
  hand: Record<string, HandVerdict>,
  groupOf: (m: MutantRecord) => string,
): string[][] {
  const groups = [...new Set(results.mutants.map(groupOf))].sort();
  return groups.map((group) => {
    const members = results.mutants.filter((m) => groupOf(m) === group);
    return [group, ...results.testers.map((t) => rate(tally(members, t.name, hand)))];
  });
}

export function summarise(results: Results, equivalentsPath: string): string {
  const hand = loadEquivalents(equivalentsPath);
  const names = results.testers.map((t) => t.name);
  const stillborn = results.mutants.filter((m) => m.stillborn).length;
  const lines: string[] = [];
  lines.push(
    `${results.mutants.length} mutants sampled (seed ${results.seed}) from ${results.population} of the server's ${(results.folders ?? ["src/engine", "src/http"]).join(", ")}${results.scope === "state" ? " (server on --state)" : ""}; ${results.drawn} drawn, ${results.rejectedByCompiler} rejected by the compiler, ${results.unchangedOutput} changing no emitted code; ${stillborn} stop the server from starting (left out).`,
    "",
  );
  lines.push(
    table(
      [
        "tester",
        "mutants",
        "equivalent",
        "killed",
        "kill rate",
        "95 % interval",
        "kill rate of reached code",
        "kill rate within the contract",
      ],
      names.map((name) => {
        const t = tally(results.mutants, name, hand);
        const reached = results.mutants.filter((m) => m.trials.find((x) => x.tester === name)?.reached);
        const r = tally(reached, name, hand);
        return [
          name,
          String(t.valid),
          String(t.equivalent),
          String(t.killed),
          percent(t.killed, t.valid - t.equivalent),
          wilson(t.killed, t.valid - t.equivalent),
          rate(r),
          `${t.killed}/${t.valid - t.equivalent - t.outside} (${percent(t.killed, t.valid - t.equivalent - t.outside)})`,
        ];
      }),
    ),
    "",
  );
  const fates: Fate[] = [
    "killed",
    "timed out",
    "equivalent",
    "outside the contract",
    "not reached",
    "server tests kill it",
    "survived (judged by hand)",
    "survived (unclassified)",
  ];
  lines.push(
    table(
      ["fate", ...names],
      fates.map((fate) => [
        fate,
        ...names.map((n) => String(results.mutants.filter((m) => fateOf(m, n, hand) === fate).length)),
      ]),
    ),
    "",
  );
  lines.push(
    table(
      ["operator", ...names],
      byGroup(results, hand, (m) => m.operator),
    ),
    "",
  );
  lines.push(
    table(
      ["part", ...names, ...names.map((n) => `${n}: 95 % interval`)],
      byGroup(results, hand, (m) => partOf(m.file)).map((row) => {
        const members = results.mutants.filter((m) => partOf(m.file) === row[0]);
        return [
          ...row,
          ...names.map((n) => {
            const t = tally(members, n, hand);
            return wilson(t.killed, t.valid - t.equivalent);
          }),
        ];
      }),
    ),
    "",
  );
  lines.push(
    table(
      ["module", ...names],
      byGroup(results, hand, (m) => m.file.replace(/^src\//, "")),
    ),
    "",
  );
  for (const name of names) {
    const carried = results.mutants.filter(
      (m) => m.trials.find((t) => t.tester === name)?.verdict?.carriedFrom !== undefined,
    );
    if (carried.length > 0)
      lines.push(
        `${name}: ${carried.length} kills carried from ${carried[0]!.trials.find((t) => t.tester === name)!.verdict!.carriedFrom} (not run: --survivors-of)`,
        "",
      );
  }
  const survivors = results.mutants.filter((m) =>
    names.some((n) => !["killed", "stillborn"].includes(fateOf(m, n, hand))),
  );
  lines.push(`survivors (${survivors.length}):`);
  for (const m of survivors) {
    const fates = names.map((n) => `${n}: ${fateOf(m, n, hand)}`).join("; ");
    const why = hand[m.key]?.why;
    lines.push(
      `- ${m.id} ${JSON.stringify(m.original.replace(/\s+/g, " ").slice(0, 60))} → ${JSON.stringify(m.replacement.slice(0, 30))} (${fates})${why ? ` — ${why}` : ""}`,
    );
  }
  return lines.join("\n");
}
