/**
 * aggregate_cover (x-relations aggregates): each item of an aggregate list (aggTrades) covers the
 * trades with ids from its first to its last; the items follow each other without gaps or
 * overlaps; every covered trade has the item's shared values (every field `same` names: price,
 * time, maker side, best match) and the item holds the sums (quantity). The trades come from the
 * spec's trade source. An item followed by another is closed: no later trade can join it. The
 * newest item is judged only when the newest trade id read after the list is its last id (nothing
 * traded since); otherwise it is left out. On every symbol the run trades.
 */
import type { AggregateCover, TradeField } from "@marketapi/spec/model";
import { type Dec, formatDec, ZERO } from "../core/decimal.js";
import { listAt, valueAt } from "../kit/behaviour-support.js";
import { type RunContext, tradedSymbols, whyNoTrading } from "../kit/context.js";
import { smallestQuantity } from "../kit/market.js";
import { spreadWithRoom, tradeBetweenOwn } from "../kit/own-orders.js";
import {
  judged,
  named,
  newestTradeId,
  readAnswer,
  relationsOf,
  sameToLastPlace,
  sameValue,
  type TradeRow,
  tradesBetween,
  tradeValue,
  unjudged,
  unreadWhy,
} from "../kit/relations-support.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { ContractCheck } from "./check.js";

const CHECK = "aggregate_cover";
/** Items of the newest aggregates judged: enough to see runs of several, few trades to read. */
const ITEMS = 20;

export const aggregateCover: ContractCheck<typeof CHECK> = {
  name: CHECK,
  label: "agg",
  description:
    "each aggregate trade covers exactly the trades from its first to its last id, with every value they share (price, time, side, best match), and their summed quantity (x-relations)",
  covers: ["x-relations"],
  hooks: [{ phase: "relation", run: aggregateCoverCheck }],
  appliesTo: named((relations) => relations.aggregates.map((cover) => cover.operation)),
  notApplicable: "x-relations states no aggregate of it",
  seenToCatch: [
    "aggTrades-trade-ids-off-by-one",
    "aggTrades-qty-in-quote",
    "aggTrades-not-best-match",
    "aggTrades-first-id-of-several-one-high",
    "aggTrades-maker-side-flipped-on-ethbtc",
  ],
};

export async function aggregateCoverCheck(ctx: RunContext): Promise<void> {
  const relations = relationsOf(ctx);
  if (!relations) return;
  for (const cover of relations.aggregates) {
    await makeAggregate(ctx, cover);
    // Every symbol the run trades: each has its own trades and aggregates.
    for (const symbol of tradedSymbols(ctx)) await judgeCover(ctx, cover, symbol);
  }
}

interface Item {
  index: number;
  first: number;
  last: number;
  raw: unknown;
}

/** Trades of the aggregate the run makes: one taker's with makers at one price. */
const MADE_OF = 2;

/**
 * Where the run may move the last price (stop_triggers' rule), it makes an aggregate of MADE_OF
 * trades of its own inside the spread, so that the newest items hold one that covers several
 * trades: an item of one trade shows nothing of how first and last ids are counted.
 */
async function makeAggregate(ctx: RunContext, cover: AggregateCover): Promise<void> {
  if (whyNoTrading(ctx) !== undefined || !ctx.movePrices) return;
  const note = (what: string) =>
    ctx.session.recorder.note(
      CHECK,
      cover.operation,
      `${cover.name}, an aggregate of ${MADE_OF} trades: ${what}`,
    );
  const plan = ctx.symbols.find((p) => p.rules.symbol === ctx.values.symbol);
  if (!plan?.rules.selfTradeAllowed) return note("the run's orders may not trade with each other here");
  const { rules } = plan;
  const spread = await spreadWithRoom(ctx, rules, 2n, `${CHECK}: the book of ${rules.symbol}`);
  if (!spread) return note(`no room inside the spread of ${rules.symbol}; not made`);
  const price = spread.bid + rules.tick;
  const quantity = formatDec(smallestQuantity(rules, price));
  const traded = await tradeBetweenOwn(ctx, rules.symbol, formatDec(price), quantity, CHECK, MADE_OF);
  if (!traded) note(`the run's trades at ${formatDec(price)} did not happen`);
  else if (traded.untaken) ctx.session.fail(CHECK, traded.taker.placed.exchange, traded.untaken);
}

async function judgeCover(ctx: RunContext, cover: AggregateCover, symbol: string): Promise<void> {
  const limit = ctx.session.model.operation(cover.operation)?.behaviour.limit;
  const name = `${cover.name} of ${symbol}`;
  const served = await readAnswer(
    ctx,
    CHECK,
    cover.operation,
    { symbol, ...(limit ? { [limit.parameter]: Math.min(ITEMS, limit.maximum) } : {}) },
    `${name}: the newest items`,
  );
  const newest = await newestTradeId(ctx, CHECK, `${name}: the newest trade id after`, symbol);
  const trades = relationsOf(ctx)?.trades?.operation;
  const on = [cover.operation, ...(trades ? [trades] : [])];
  if (!served || newest === undefined)
    return unjudged(
      ctx,
      cover.name,
      on,
      !served ? unreadWhy(ctx, cover.operation) : `the trades: ${unreadWhy(ctx, trades ?? "")}`,
    );
  const items: Item[] = [];
  for (const [index, raw] of (listAt(served.json, "") ?? []).entries()) {
    const first = valueAt(raw, cover.first);
    const last = valueAt(raw, cover.last);
    if (typeof first !== "number" || typeof last !== "number") {
      judged(ctx, cover.name, [cover.operation]);
      ctx.session.fail(
        CHECK,
        served.exchange,
        `${cover.name}: item ${index} has no trade ids (${cover.first}, ${cover.last})`,
      );
      return;
    }
    items.push({ index, first, last, raw });
  }
  const note = (text: string) => ctx.session.recorder.note(CHECK, cover.operation, `${name}: ${text}`);
  if (items.length === 0) {
    unjudged(ctx, cover.name, on, "the list was empty: no item to judge");
    return note("no item to judge");
  }
  const problems = gapsAndOverlaps(cover, items);
  const closed = items.filter((item, i) => i < items.length - 1 || item.last === newest);
  if (closed.length < items.length) note("the newest item was left out: trades came after it");
  if (closed.length > 0) {
    const from = closed[0] as Item;
    const to = closed.at(-1) as Item;
    const covered = await tradesBetween(
      ctx,
      CHECK,
      from.first,
      to.last,
      `${name}: the trades it covers`,
      undefined,
      symbol,
    );
    if (!covered) {
      unjudged(ctx, cover.name, on, "the trades it covers could not be read");
      return note("the trades it covers could not be read");
    }
    const byId = new Map(covered.map((t) => [t.id, t]));
    for (const item of closed) problems.push(...itemProblems(cover, item, byId));
  }
  judged(ctx, cover.name, closed.length > 0 ? on : [cover.operation]);
  if (closed.length === 0 && trades)
    unjudged(ctx, cover.name, [trades], "the only item was still open: trades came after it");
  report(ctx, served.exchange, name, problems);
}

function gapsAndOverlaps(cover: AggregateCover, items: Item[]): string[] {
  const problems: string[] = [];
  for (const [i, item] of items.entries()) {
    if (item.first > item.last)
      problems.push(`item ${item.index} covers ${item.first} to ${item.last}: first after last`);
    const previous = items[i - 1];
    if (previous && item.first !== previous.last + 1)
      problems.push(
        `item ${item.index} starts at trade ${item.first}, item ${previous.index} ends at ${previous.last}: ${item.first > previous.last + 1 ? "trades between them are in no item" : "they overlap"} (${cover.first}, ${cover.last})`,
      );
  }
  return problems;
}

function itemProblems(cover: AggregateCover, item: Item, byId: Map<number, TradeRow>): string[] {
  const covered: TradeRow[] = [];
  for (let id = item.first; id <= item.last; id++) {
    const trade = byId.get(id);
    if (!trade) return [`item ${item.index} covers trade ${id}, which the trades do not list`];
    covered.push(trade);
  }
  const problems: string[] = [];
  for (const [field, pointer] of Object.entries(cover.same) as Array<[TradeField, string]>) {
    const value = valueAt(item.raw, pointer);
    const other = covered.find((t) => !sameValue(shown(tradeValue(t, field)), value));
    if (other)
      problems.push(
        `item ${item.index} has ${field} ${JSON.stringify(value)} (${pointer}); trade ${other.id} it covers has ${JSON.stringify(shown(tradeValue(other, field)))}`,
      );
  }
  for (const [field, pointer] of Object.entries(cover.sums) as Array<[TradeField, string]>) {
    const value = valueAt(item.raw, pointer);
    const sum = covered.reduce((total, t) => total + (tradeValue(t, field) as Dec), ZERO);
    if (!sameToLastPlace(value, sum))
      problems.push(
        `item ${item.index} has ${field} ${JSON.stringify(value)} (${pointer}); the ${covered.length} trades ${item.first}–${item.last} sum to ${formatDec(sum)}`,
      );
  }
  return problems;
}

/** A trade value as an answer writes it: decimals as text. */
function shown(value: unknown): unknown {
  return typeof value === "bigint" ? formatDec(value) : value;
}

function report(ctx: RunContext, exchange: RoundTrip, name: string, problems: string[]): void {
  if (problems.length === 0) ctx.session.pass(CHECK, exchange);
  else
    ctx.session.fail(
      CHECK,
      exchange,
      `${name}: ${problems.slice(0, 4).join("; ")}${problems.length > 4 ? `; … ${problems.length - 4} more` : ""}`,
    );
}
