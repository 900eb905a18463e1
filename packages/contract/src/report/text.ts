/** Human-readable output: progress lines, the checks × operations table, failure details, summary. */
import type { ProgressEvent } from "../kit/context.js";
import {
  type Cell,
  CHECK_LABELS,
  type CheckName,
  type ContractResult,
  type ExchangeRecord,
  type Failure,
} from "../result.js";
import { coverageText } from "./coverage.js";

export interface TextStyle {
  color: boolean;
}

/** The column names of the table; `--only` accepts them as well as the full check names. */
export const SHORT: Record<CheckName, string> = CHECK_LABELS;

function paint(style: TextStyle, code: string, text: string): string {
  return style.color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

const red = (s: TextStyle, t: string) => paint(s, "31", t);
const green = (s: TextStyle, t: string) => paint(s, "32", t);
const dim = (s: TextStyle, t: string) => paint(s, "2", t);
const bold = (s: TextStyle, t: string) => paint(s, "1", t);

/** One line per progress event. */
export function progressLine(event: ProgressEvent, style: TextStyle): string {
  if (event.type === "stage") return dim(style, `· ${event.message}`);
  // The line says what the final verdict will say: an operation that got no request did not pass,
  // and one that answered only 404/405/501 so far is not implemented (its failures are not counted).
  const absent = event.notImplemented !== undefined;
  const unexercised = event.requests === 0 && event.failures === 0;
  const mark =
    absent || unexercised ? dim(style, "–") : event.failures > 0 ? red(style, "✗") : green(style, "✓");
  const failures = absent
    ? red(style, `  not implemented so far (every answer ${event.notImplemented})`)
    : unexercised
      ? dim(style, "  no request sent")
      : event.failures > 0
        ? red(style, `  ${event.failures} failure${event.failures === 1 ? "" : "s"}`)
        : "";
  const note = event.note ? dim(style, `  (${event.note})`) : "";
  const requests = `${event.requests} request${event.requests === 1 ? "" : "s"}`;
  return `${mark} ${event.operationId.padEnd(38)} ${event.stage.padEnd(10)} ${requests.padStart(13)}${failures}${note}`;
}

function pad(text: string, visible: number, width: number): string {
  return text + " ".repeat(Math.max(0, width - visible));
}

/** The table: one row per operation, one column per check; skip reasons as numbered notes. */
export function resultTable(result: ContractResult, style: TextStyle): string {
  const reasons: string[] = [];
  const reasonIndex = (reason: string) => {
    let i = reasons.indexOf(reason);
    if (i < 0) i = reasons.push(reason) - 1;
    return i + 1;
  };
  const byKey = new Map(result.cells.map((c) => [`${c.check}\u0000${c.operationId}`, c]));
  const opWidth = Math.max(9, ...result.operations.map((o) => o.length)) + 2;
  const colWidth = Math.max(9, ...result.checks.map((c) => SHORT[c].length + 2));
  const lines: string[] = [];
  lines.push(
    bold(
      style,
      (
        pad("operation", 9, opWidth) +
        result.checks.map((c) => pad(SHORT[c], SHORT[c].length, colWidth)).join("")
      ).trimEnd(),
    ),
  );
  for (const operationId of result.operations) {
    let line = pad(operationId, operationId.length, opWidth);
    for (const check of result.checks) {
      const cell = byKey.get(`${check}\u0000${operationId}`);
      const [text, shown] = cellText(cell, style, reasonIndex);
      line += pad(text, shown.length, colWidth);
    }
    lines.push(line.trimEnd());
  }
  lines.push("");
  lines.push(
    dim(
      style,
      `✓ n: passed (n assertions)   ✗ n: failed (n failed assertions)   –k: skipped, reason k below`,
    ),
  );
  lines.push(dim(style, "columns:"));
  for (const check of result.checks) lines.push(dim(style, `  ${SHORT[check].padEnd(10)}${check}`));
  if (reasons.length > 0) {
    lines.push("");
    lines.push(bold(style, "skipped because"));
    reasons.forEach((reason, i) => {
      lines.push(`  ${String(i + 1).padStart(2)}. ${reason}`);
    });
  }
  return lines.join("\n");
}

function cellText(
  cell: Cell | undefined,
  style: TextStyle,
  reasonIndex: (r: string) => number,
): [string, string] {
  if (!cell) return ["", ""];
  if (cell.status === "failed") {
    const shown = `✗ ${cell.failed}`;
    return [red(style, shown), shown];
  }
  if (cell.status === "passed") {
    const shown = `✓ ${cell.passed}`;
    return [green(style, shown), shown];
  }
  const shown = `–${reasonIndex(cell.reason ?? "not exercised")}`;
  return [dim(style, shown), shown];
}

function indent(text: string, prefix: string): string {
  return text
    .split("\n")
    .map((line) => prefix + line)
    .join("\n");
}

export function exchangeText(exchange: ExchangeRecord): string {
  const lines: string[] = [];
  const r = exchange.request;
  lines.push(`request:  ${r.method} ${r.url}`);
  for (const [name, value] of Object.entries(r.headers)) {
    if (name === "accept") continue;
    lines.push(`          ${name}: ${value}`);
  }
  if (r.body !== undefined) lines.push(`          body: ${r.body}`);
  if (exchange.response) {
    const res = exchange.response;
    lines.push(
      `response: ${res.status} ${res.contentType || "(no Content-Type)"} in ${exchange.durationMs} ms`,
    );
    if (res.bodyExcerpt) lines.push(indent(res.bodyExcerpt, "          "));
  } else {
    lines.push(`response: none (${exchange.error ?? "no answer"})`);
  }
  return lines.join("\n");
}

function failureText(failure: Failure, index: number, style: TextStyle): string {
  const head = `${index}) ${bold(style, failure.check)} · ${failure.operationId}${failure.exchange ? ` · ${failure.exchange.case}` : ""}`;
  const lines = [head, `   ${red(style, failure.message)}`];
  if (failure.schemaPath) lines.push(`   schema path: ${failure.schemaPath}`);
  if (failure.exchange) lines.push(indent(exchangeText(failure.exchange), "   "));
  if (failure.sequence) lines.push(indent(sequenceText(failure.sequence), "   "));
  return lines.join("\n");
}

/** The steps of a minimal failing sequence, one line each (replay prints them as a script). */
function sequenceText(sequence: NonNullable<Failure["sequence"]>): string {
  const steps = new Map<number, { description: string; requests: string[] }>();
  for (const { step, description, exchange } of sequence.steps) {
    const entry = steps.get(step) ?? { description, requests: [] };
    steps.set(step, entry);
    const status = exchange.response ? String(exchange.response.status) : "no answer";
    entry.requests.push(`${exchange.request.method} ${new URL(exchange.request.url).pathname} ${status}`);
  }
  const lines = [
    `the minimal sequence (seed ${sequence.seed}, ${sequence.shrinks} shrinks; marketapi-contract replay prints it as a script):`,
  ];
  for (const [step, { description, requests }] of steps)
    lines.push(`  ${String(step).padStart(2)}. ${description}  [${requests.join(", ")}]`);
  return lines.join("\n");
}

export function failuresText(result: ContractResult, style: TextStyle): string {
  const failed = result.cells.filter((c) => c.status === "failed");
  if (failed.length === 0) return "";
  const total = failed.reduce((n, c) => n + c.failed, 0);
  const lines = [
    bold(
      style,
      `FAILURES (${total} failed assertion${total === 1 ? "" : "s"} in ${failed.length} cell${failed.length === 1 ? "" : "s"}; up to 5 shown per cell)`,
    ),
    "",
  ];
  // Failures of the same check and cause on several operations are shown once, with the list of
  // operations (and their numbers, which replay takes).
  const numbered = failed
    .flatMap((cell) => cell.failures)
    .map((failure, index) => ({ failure, n: index + 1 }));
  const groups = new Map<string, Array<{ failure: Failure; n: number }>>();
  for (const entry of numbered) {
    const key = `${entry.failure.check}\u0000${causeOf(entry.failure.message)}`;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  const shown = new Set<number>();
  for (const cell of failed) {
    for (const failure of cell.failures) {
      const entry = numbered.find((e) => e.failure === failure)!;
      if (shown.has(entry.n)) continue;
      const group = groups.get(`${failure.check}\u0000${causeOf(failure.message)}`) ?? [entry];
      const others = group.filter((e) => e.failure.operationId !== failure.operationId);
      lines.push(failureText(failure, entry.n, style));
      if (others.length > 0) {
        for (const e of others) shown.add(e.n);
        lines.push(
          dim(
            style,
            `   same cause on ${others.map((e) => `${e.failure.operationId} (#${e.n})`).join(", ")}`,
          ),
        );
      }
      lines.push("");
      shown.add(entry.n);
    }
    if (cell.failed > cell.failures.length) {
      lines.push(
        dim(style, `   … ${cell.failed - cell.failures.length} more for ${cell.check} · ${cell.operationId}`),
        "",
      );
    }
  }
  return lines.join("\n").trimEnd();
}

const EXIT_MEANING: Record<ContractResult["exitCode"], string> = {
  0: "every check that ran passed",
  1: "contract failures",
  2: "usage or connection error",
  3: "the run could not be completed: connection, deadline or clean-up",
  130: "interrupted",
};

/** How the target's rate limits paced the run: how long it waited, by which limits, and any 429. */
export function pacingLine(result: ContractResult): string | undefined {
  const { pacedMs = 0, pacedBy = [], rateLimited = 0, rateLimitsNote } = result.stats;
  if (rateLimitsNote) return `rate limits: ${rateLimitsNote}; ${rateLimited} answer(s) 429 or 418`;
  if (pacedBy.length === 0 && rateLimited === 0) return undefined;
  const waited =
    pacedMs > 0 ? `waited ${(pacedMs / 1000).toFixed(1)} s for them` : "never had to wait for them";
  return `rate limits: ${pacedBy.join(", ") || "none announced"}; the run ${waited}; ${rateLimited} answer(s) 429 or 418`;
}

export function summaryText(result: ContractResult, style: TextStyle): string {
  const { summary, stats, cleanup } = result;
  const lines: string[] = [];
  const seconds = (stats.durationMs / 1000).toFixed(1);
  lines.push(
    `${result.operations.length} operations × ${result.checks.length} checks: ` +
      `${green(style, `${summary.passed} passed`)}, ${summary.failed > 0 ? red(style, `${summary.failed} failed`) : "0 failed"}, ${summary.skipped} skipped` +
      ` · ${stats.requests} requests in ${seconds} s (${Math.round(stats.requestsPerSecond)} req/s) · seed ${result.seed}`,
  );
  const paced = pacingLine(result);
  if (paced) lines.push(dim(style, paced));
  const tried = cleanup.sent ?? cleanup.created;
  if (result.tradingNote) {
    // Said from what the ledger holds, not from the lifecycle's view: other checks may have traded.
    lines.push(
      dim(
        style,
        tried === 0
          ? `trading operations not exercised: ${result.tradingNote}`
          : `the order lifecycle did not run: ${result.tradingNote}`,
      ),
    );
  }
  if (result.notImplemented?.length > 0) {
    lines.push(red(style, `not implemented: ${result.notImplemented.length} operation(s)`));
    for (const n of result.notImplemented)
      lines.push(`  ${n.operationId}: every request (${n.requests}) answered ${n.status}`);
  }
  if (tried > 0 || cleanup.leftOpen.length > 0) lines.push(ordersLine(cleanup, style));
  if (result.error)
    lines.push(red(style, `${result.error.kind} error: ${result.error.message.split("\n")[0]}`));
  lines.push(
    `exit ${result.exitCode} (${EXIT_MEANING[result.exitCode]}); reproduce with --seed ${result.seed}`,
  );
  return lines.join("\n");
}

/** What the run did to the target's orders: placed by whom, and what may still be open. */
function ordersLine(cleanup: ContractResult["cleanup"], style: TextStyle): string {
  const by = Object.entries(cleanup.placedBy ?? {})
    .map(([purpose, n]) => `${n} by ${purpose}`)
    .join(", ");
  const refused = (cleanup.sent ?? cleanup.created) - cleanup.created;
  const placed =
    cleanup.created === 0
      ? `orders: none placed${refused > 0 ? ` (${refused} sent, none accepted)` : ""}`
      : `orders: ${cleanup.created} placed${by ? ` (${by})` : ""}`;
  if (cleanup.leftOpen.length === 0) {
    return `${placed}, none left open${cleanup.cancelledAtEnd > 0 ? ` (${cleanup.cancelledAtEnd} cancelled by the final clean-up)` : ""}`;
  }
  return red(
    style,
    `${placed}; ${cleanup.leftOpen.length} order(s) could not be confirmed closed and may still be open: ${cleanup.leftOpen.join(", ")}`,
  );
}

/** Everything printed after the run (table, failures, summary). */
/** Notes on passing cells: what a check could not observe (shown, so a pass is never overstated). */
export function notesText(result: ContractResult, style: TextStyle): string {
  const noted = result.cells.filter((c) => c.status === "passed" && c.reason);
  if (noted.length === 0) return "";
  return [bold(style, "NOTES"), ...noted.map((c) => `  ${c.check} · ${c.operationId}: ${c.reason}`)].join(
    "\n",
  );
}

export function reportText(result: ContractResult, style: TextStyle): string {
  const parts: string[] = [];
  if (result.cells.length > 0) parts.push(resultTable(result, style));
  const coverage = coverageText(result, (t) => bold(style, t));
  if (coverage) parts.push(coverage);
  const notes = notesText(result, style);
  if (notes) parts.push(notes);
  const failures = failuresText(result, style);
  if (failures) parts.push(failures);
  parts.push(summaryText(result, style));
  return `${parts.join("\n\n")}\n`;
}

/** A failure message with its values masked: the same cause on other operations reads the same. */
export function causeOf(message: string): string {
  return message
    .replace(/"[^"]*"/g, '"…"')
    .replace(/-?\d+(\.\d+)?/g, "N")
    .replace(/\b(symbol|fromId|limit|orderId)=\S+/g, "$1=…");
}
