/**
 * shared_facts (x-relations sharedFacts): a fact that several operations report (the best bid and
 * ask, the last price) has the same value in each of them. The reports are read between two
 * readings of what moves the fact (the book's version, the newest trade id); when the readings
 * differ the market moved, and the reads are made again, at most ATTEMPTS times, then noted as not
 * judged: a busy market never raises a false alarm. The spec's first report of a fact is the one
 * the others are compared with.
 */
import type { FactReport, SharedFact } from "@marketapi/spec/model";
import { listAt, valueAt } from "../kit/behaviour-support.js";
import { type RunContext, tradedSymbols } from "../kit/context.js";
import {
  ATTEMPTS,
  judged,
  named,
  onSymbol,
  readAnswer,
  relationsOf,
  sameValue,
  unjudged,
  unreadWhy,
  witness,
} from "../kit/relations-support.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "shared_facts";

export const sharedFacts: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "shared",
  description:
    "a fact several operations report (best bid and ask, last price) is the same in each, read while the market stood still (x-relations)",
  covers: ["x-relations"],
  hooks: [{ phase: "relation", run: sharedFactsCheck }],
  appliesTo: named((relations) =>
    relations.sharedFacts.flatMap((fact) => fact.reports.map((r) => r.operation)),
  ),
  notApplicable: "x-relations names no shared fact it reports",
  seenToCatch: [
    "bookTicker-stale",
    "price-ticker-stale",
    "recent-trades-quote-qty-is-qty",
    "depth-sides-swapped-on-ethbtc",
  ],
};

export async function sharedFactsCheck(ctx: RunContext): Promise<void> {
  const relations = relationsOf(ctx);
  if (!relations) return;
  // Every symbol the run trades: a fact kept on the first symbol only is a fault too.
  const symbols = tradedSymbols(ctx);
  for (const symbol of symbols)
    for (const fact of relations.sharedFacts)
      await judgeFact(ctx, fact, symbol === ctx.values.symbol ? undefined : symbol);
}

interface Reading {
  report: FactReport;
  exchange: RoundTrip;
  /** The report's values (undefined where the answer holds none, such as an empty side of the book). */
  values: Record<string, unknown>;
}

/** The item of the answer that reports the fact. */
function itemOf(json: unknown, report: FactReport): unknown {
  if (report.item === undefined) return Array.isArray(json) ? undefined : json;
  const items = listAt(json, "") ?? [];
  return report.item === "first" ? items[0] : items.at(-1);
}

/** Reads every report at once, so that the market has the least time to move between them. */
async function readReports(
  ctx: RunContext,
  fact: SharedFact,
  symbol: string | undefined,
): Promise<Reading[] | undefined> {
  const book = relationsOf(ctx)?.book?.operation;
  const answers = await Promise.all(
    fact.reports.map(async (report) => {
      // A list answer's newest item is its last: one item is enough; a book needs only its best levels.
      const extra = report.item === "last" || report.operation === book ? limitOne(ctx, report) : {};
      const served = await readAnswer(
        ctx,
        CHECK,
        report.operation,
        { ...extra, ...onSymbol(symbol) },
        `${factOn(fact, symbol)}: ${report.operation}`,
      );
      return served && { report, served };
    }),
  );
  const readings: Reading[] = [];
  for (const [i, answer] of answers.entries()) {
    if (!answer) {
      const operation = (fact.reports[i] as FactReport).operation;
      unjudged(ctx, fact.name, [operation], unreadWhy(ctx, operation));
      continue;
    }
    const { report, served } = answer;
    const item = itemOf(served.json, report);
    const values = Object.fromEntries(
      Object.entries(report.values).map(([name, pointer]) => [
        name,
        item === undefined ? undefined : valueAt(item, pointer),
      ]),
    );
    readings.push({ report, exchange: served.exchange, values });
  }
  if (readings.length >= 2) return readings;
  unjudged(
    ctx,
    fact.name,
    readings.map((r) => r.report.operation),
    "no other report of the fact could be read to compare it with",
  );
  return undefined;
}

/** The smallest limit the operation takes, when it has one (its newest items, or the best levels). */
function limitOne(ctx: RunContext, report: FactReport): Record<string, number> {
  const limit = ctx.session.model.operation(report.operation)?.behaviour.limit;
  return limit ? { [limit.parameter]: report.item === "last" ? 1 : 5 } : {};
}

/** The fact's name, with the symbol it was read on where that is not the run's first. */
function factOn(fact: SharedFact, symbol: string | undefined): string {
  return symbol === undefined ? fact.name : `${fact.name} on ${symbol}`;
}

async function judgeFact(ctx: RunContext, fact: SharedFact, symbol?: string): Promise<void> {
  const operations = [...new Set(fact.reports.map((r) => r.operation))];
  const name = factOn(fact, symbol);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await witness(ctx, CHECK, fact.movesWith, name, symbol);
    if (before === undefined)
      return unjudged(
        ctx,
        fact.name,
        operations,
        `${fact.movesWith === "book" ? "the book's version" : "the newest trade id"} could not be read, so no two reads are known to see the same market`,
      );
    const readings = await readReports(ctx, fact, symbol);
    const after = await witness(ctx, CHECK, fact.movesWith, name, symbol);
    if (!readings) return;
    if (after !== before) continue;
    compare(ctx, fact, readings, name);
    return;
  }
  const mover = fact.movesWith === "book" ? "the book changed" : "a trade happened";
  unjudged(ctx, fact.name, operations, `${mover} during each of ${ATTEMPTS} reads`);
  for (const id of operations)
    ctx.session.recorder.note(
      CHECK,
      id,
      `${fact.name}: ${mover} during each of ${ATTEMPTS} reads; not judged`,
    );
}

function compare(ctx: RunContext, fact: SharedFact, readings: Reading[], label = fact.name): void {
  const names = [...new Set(readings.flatMap((r) => Object.keys(r.values)))];
  const failed = new Set<RoundTrip>();
  for (const name of names) {
    const reporting = readings.filter((r) => name in r.values);
    const reference = reporting.find((r) => r.values[name] !== undefined);
    if (!reference || reporting.length < 2) continue;
    const missing = reporting.filter((r) => r.values[name] === undefined);
    const compared = reporting.filter((r) => r.values[name] !== undefined);
    if (compared.length >= 2)
      judged(
        ctx,
        fact.name,
        compared.map((r) => r.report.operation),
      );
    for (const r of missing) {
      unjudged(
        ctx,
        fact.name,
        [r.report.operation],
        `its answer holds no ${name} (${r.report.values[name]})`,
      );
      ctx.session.recorder.note(
        CHECK,
        r.exchange.op.operationId,
        `${label}: ${r.report.operation} holds no ${name} (${r.report.values[name]}); not compared`,
      );
    }
    for (const other of reporting) {
      if (other === reference || other.values[name] === undefined) continue;
      if (sameValue(other.values[name], reference.values[name])) continue;
      failed.add(other.exchange);
      ctx.session.fail(
        CHECK,
        other.exchange,
        `${label}: ${other.report.operation} reports ${name} ${JSON.stringify(other.values[name])} (${other.report.values[name]}), ${reference.report.operation} ${JSON.stringify(reference.values[name])} (${reference.report.values[name]}), read while ${fact.movesWith === "book" ? "the book's version" : "the newest trade id"} stayed the same`,
      );
    }
  }
  for (const r of readings) if (!failed.has(r.exchange)) ctx.session.pass(CHECK, r.exchange);
}
