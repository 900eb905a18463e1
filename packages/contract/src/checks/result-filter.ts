/**
 * result_filter (x-result-filter): with a filter the answer holds exactly what it names: every
 * item carries the named value, and with a list (`symbols`) every named value is there; on every
 * symbol the run trades. Without the filter (where it is optional) the answer holds every
 * symbol's items, each as the filtered read shows it: read filtered before and after the
 * unfiltered read, and judged on what the two filtered reads agree on (a field that moved in
 * between, such as a rolling window's closeTime or a busy market's price, is not judged).
 */

import type { ResultFilter } from "@marketapi/spec/model";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { fetchServed, isRead, listAt, short, valueAt, valuesFor } from "../kit/behaviour-support.js";
import { expectRefusal, type RunContext, tradedSymbols } from "../kit/context.js";
import { unknownSymbol } from "../kit/market.js";
import type { Values } from "../kit/values.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "result_filter";

export const resultFilter: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "filter",
  description: "symbol/symbols restrict the answer to exactly what they name (x-result-filter)",
  covers: ["x-result-filter"],
  hooks: [{ phase: "behaviour", run: resultFilterCheck, needsHistory: false }],
  appliesTo: (operation) => isRead(operation) && operation.behaviour.resultFilters !== undefined,
  notApplicable: "no behaviour extension calls for it",
  seenToCatch: [
    "exchangeInfo-symbol-ignored",
    "open-orders-other-symbols",
    "price-ticker-unfiltered-first-symbol-only",
    "book-ticker-unfiltered-sides-swapped",
    "symbols-list-unknown-member-skipped",
  ],
};

export async function resultFilterCheck(ctx: RunContext, operation: ContractOperation): Promise<void> {
  const filters = operation.behaviour.resultFilters;
  if (!filters) return;
  const symbols = ctx.values.symbols;
  const traded = tradedSymbols(ctx);
  for (const filter of filters.filters) {
    const each = filter.takes === "list" ? namedLists(symbols, traded) : traded.map((s) => [s]);
    for (const wanted of each) await filtered(ctx, operation, filter, wanted);
    if (filter.takes === "list" && filters.unknown === "error")
      await unknownInList(ctx, operation, filter, traded);
    const parameter = operation.parameters.find((p) => p.name === filter.parameter);
    if (filter.takes === "one" && parameter && !parameter.required && traded.length > 0)
      await unfiltered(ctx, operation, filter, traded);
  }
}

/**
 * A list filter naming a symbol the target lists and one it does not (`unknown: error`): refused,
 * with the code x-unknown-reference names for an unknown symbol where it names one, never
 * answered with the known symbol's items alone.
 */
async function unknownInList(
  ctx: RunContext,
  operation: ContractOperation,
  filter: ResultFilter,
  traded: readonly string[],
): Promise<void> {
  const known = traded[0];
  if (known === undefined) return;
  const list = [known, unknownSymbol(ctx.values.symbols)];
  const what = `${filter.parameter}=${JSON.stringify(list)}, naming a symbol the target does not list`;
  const exchange = await ctx.session.call(
    {
      op: operation,
      params: encodeParams(operation, valuesFor(ctx, operation, { [filter.parameter]: list })),
    },
    `filter: ${what}`,
  );
  const rule = operation.behaviour.unknownReferences?.symbol;
  expectRefusal(ctx, CHECK, exchange, { code: rule?.code, status: rule?.status, what });
}

/**
 * The lists a list filter (`symbols`) is read with. A list that names every listed symbol passes
 * whether the filter is honoured or ignored, so each list leaves at least one listed symbol out;
 * it names at least two (an answer cut to the first is then seen), the traded ones first. With
 * two listed, that takes two reads: both, and the first alone.
 */
export function namedLists(listed: readonly string[], traded: readonly string[]): string[][] {
  const ordered = [...new Set([...traded.filter((s) => listed.includes(s)), ...listed])];
  if (ordered.length <= 1) return [ordered];
  if (ordered.length === 2) return [ordered, ordered.slice(0, 1)];
  return [ordered.slice(0, Math.min(Math.max(2, traded.length), ordered.length - 1))];
}

async function filtered(
  ctx: RunContext,
  operation: ContractOperation,
  filter: ResultFilter,
  wanted: string[],
): Promise<void> {
  {
    if (wanted.length === 0) return;
    const value = filter.takes === "list" ? wanted : wanted[0];
    const served = await fetchServed(
      ctx,
      CHECK,
      operation,
      valuesFor(ctx, operation, { [filter.parameter]: value }),
      `filter: ${filter.parameter}=${JSON.stringify(value)}`,
    );
    if (!served) return;
    const items = listAt(served.json, filter.list) ?? [];
    const got = items.map((item) => valueAt(item, filter.field));
    const stray = got.filter((v) => !wanted.includes(v as string));
    const missing = filter.takes === "list" ? wanted.filter((w) => !got.includes(w)) : [];
    if (stray.length === 0 && missing.length === 0) {
      ctx.session.pass(CHECK, served.exchange);
      if (items.length === 0)
        ctx.session.recorder.note(CHECK, operation.operationId, `${filter.parameter}: the answer was empty`);
      return;
    }
    ctx.session.fail(
      CHECK,
      served.exchange,
      `${filter.parameter}=${JSON.stringify(value)} should restrict the answer to exactly ${short(wanted)} (x-result-filter)${stray.length ? `; it also holds ${short([...new Set(stray)])}` : ""}${missing.length ? `; it lacks ${short(missing)}` : ""}`,
    );
  }
}

/**
 * What is wrong with the unfiltered answer's items of one symbol, given that symbol's filtered
 * answer before and after it: an item missing, or a field the two filtered reads agree on that
 * the unfiltered one shows otherwise. Items are matched by position among that symbol's items.
 * Pure.
 */
export function unfilteredProblems(
  symbol: string,
  before: readonly unknown[],
  after: readonly unknown[],
  unfiltered: readonly unknown[],
): string[] {
  if (before.length !== after.length) return [];
  if (unfiltered.length !== before.length)
    return [
      `without a filter it holds ${unfiltered.length} item(s) of ${symbol}; filtered, ${before.length}`,
    ];
  const problems: string[] = [];
  before.forEach((item, index) => {
    const later = after[index];
    const shown = unfiltered[index];
    if (typeof item !== "object" || item === null || typeof shown !== "object" || shown === null) return;
    for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
      const stable = JSON.stringify(value) === JSON.stringify((later as Record<string, unknown>)?.[key]);
      const seen = (shown as Record<string, unknown>)[key];
      if (stable && JSON.stringify(seen) !== JSON.stringify(value))
        problems.push(
          `${symbol}: ${key} is ${JSON.stringify(seen)} without a filter, ${JSON.stringify(value)} with it`,
        );
    }
  });
  return problems;
}

/** Rounds of reads before a disagreement without the filter is the target's fault. */
const ROUNDS = 3;

async function unfiltered(
  ctx: RunContext,
  operation: ContractOperation,
  filter: ResultFilter,
  symbols: readonly string[],
): Promise<void> {
  const read = async (extra: Values, label: string) => {
    const values = valuesFor(ctx, operation, extra);
    if (!(filter.parameter in extra)) delete values[filter.parameter];
    const served = await fetchServed(ctx, CHECK, operation, values, label);
    return served ? (listAt(served.json, filter.list) ?? []) : undefined;
  };
  const itemsOf = (items: readonly unknown[], symbol: string) =>
    items.filter((item) => valueAt(item, filter.field) === symbol);
  /** One round of filtered reads around the read without the filter: its problems and that read. */
  const round = async (): Promise<{ problems: string[]; exchange: RoundTrip } | undefined> => {
    const before = new Map<string, unknown[]>();
    for (const symbol of symbols) {
      const items = await read(
        { [filter.parameter]: symbol },
        `filter: ${filter.parameter}=${symbol} (before the read without it)`,
      );
      if (!items) return;
      before.set(symbol, items);
    }
    const exchanges: RoundTrip[] = [];
    const all = await (async () => {
      const values = valuesFor(ctx, operation);
      delete values[filter.parameter];
      const served = await fetchServed(ctx, CHECK, operation, values, `filter: without ${filter.parameter}`);
      if (served) exchanges.push(served.exchange);
      return served ? (listAt(served.json, filter.list) ?? []) : undefined;
    })();
    if (!all) return;
    const problems: string[] = [];
    for (const symbol of symbols) {
      const after = await read(
        { [filter.parameter]: symbol },
        `filter: ${filter.parameter}=${symbol} (after the read without it)`,
      );
      if (!after) return;
      problems.push(...unfilteredProblems(symbol, before.get(symbol)!, after, itemsOf(all, symbol)));
    }
    return { problems, exchange: exchanges[0]! };
  };
  // A market that moves and moves back between the reads (other traders) can disagree once; a
  // server that filters wrongly disagrees every time: the run fails only a disagreement that repeats.
  let result: { problems: string[]; exchange: RoundTrip } | undefined;
  for (let attempt = 0; attempt < ROUNDS; attempt += 1) {
    result = await round();
    if (!result || result.problems.length === 0) break;
  }
  if (!result) return;
  const { problems, exchange } = result;
  if (problems.length > 0)
    ctx.session.fail(
      CHECK,
      exchange,
      `without ${filter.parameter} the answer must hold every symbol's items as ${filter.parameter}= shows them (x-result-filter): ${problems.slice(0, 4).join("; ")}${problems.length > 4 ? ` (+${problems.length - 4} more)` : ""}`,
    );
  else ctx.session.pass(CHECK, exchange);
}
