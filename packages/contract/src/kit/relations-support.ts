/**
 * What the relation checks share (x-relations): reading an operation's answer for the run's
 * symbol, the trades as the spec's trade source lists them, the witnesses that prove a market did
 * not move between two reads (the book's version, the newest trade id), and comparing a decimal
 * an answer shows with an exact value to the last place it shows.
 */
import type { Mover, Relations, TradeField } from "@marketapi/spec/model";
import { type Dec, parseDec, tryParseDec, unitOf } from "../core/decimal.js";
import type { ContractModel, ContractOperation } from "../core/operations.js";
import type { CheckName } from "../session/verdicts.js";
import { fetchServed, listAt, type Served, unreachable, valueAt, valuesFor } from "./behaviour-support.js";
import { op, type RunContext } from "./context.js";
import type { Values } from "./values.js";

/** How many times a relation is read again when the market moved between its reads. */
export const ATTEMPTS = 3;

export function relationsOf(ctx: RunContext): Relations | undefined {
  return ctx.session.model.relations;
}

/** A relation check's appliesTo: the operations `pick` names in the document's x-relations. */
export function named(
  pick: (relations: Relations) => Iterable<string>,
): (operation: ContractOperation, model: ContractModel) => boolean {
  return (operation, model) =>
    model.relations !== undefined && [...pick(model.relations)].includes(operation.operationId);
}

/** The values of a request for the run's symbol: the required ones, `symbol` where declared, and `extra`. */
export function symbolValues(ctx: RunContext, operation: ContractOperation, extra: Values = {}): Values {
  const symbol = operation.parameters.some((p) => p.name === "symbol") ? { symbol: ctx.values.symbol } : {};
  return valuesFor(ctx, operation, { ...symbol, ...extra });
}

/** The values that read `symbol` instead of the run's first symbol (none: the first). */
export function onSymbol(symbol: string | undefined): Values {
  return symbol === undefined ? {} : { symbol };
}

/**
 * The answer of `operationId` for the run's symbol (or the `symbol` of `extra`), or undefined (the operation is not in the spec,
 * cannot be called by this run, or refused: the refusal fails `check`).
 */
export async function readAnswer(
  ctx: RunContext,
  check: CheckName,
  operationId: string,
  extra: Values,
  label: string,
): Promise<Served | undefined> {
  const operation = op(ctx, operationId);
  if (!operation) return undefined;
  const lacking = unreachable(ctx, operation);
  if (lacking) {
    ctx.session.recorder.skip(check, operationId, lacking);
    return undefined;
  }
  return fetchServed(ctx, check, operation, symbolValues(ctx, operation, extra), label);
}

/** One trade as the spec's trade source reports it. */
export interface TradeRow {
  id: number;
  price: Dec;
  qty: Dec;
  quoteQty: Dec;
  time: number;
  buyerMaker: unknown;
  bestMatch: unknown;
}

export function tradeOf(item: unknown, fields: Record<TradeField, string>): TradeRow | undefined {
  const id = valueAt(item, fields.id);
  const time = valueAt(item, fields.time);
  const price = tryParseDec(valueAt(item, fields.price));
  const qty = tryParseDec(valueAt(item, fields.qty));
  const quoteQty = tryParseDec(valueAt(item, fields.quoteQty));
  if (typeof id !== "number" || typeof time !== "number") return undefined;
  if (price === undefined || qty === undefined || quoteQty === undefined) return undefined;
  return {
    id,
    price,
    qty,
    quoteQty,
    time,
    buyerMaker: valueAt(item, fields.buyerMaker),
    bestMatch: valueAt(item, fields.bestMatch),
  };
}

/** The raw value of a trade field (for comparing with an aggregate's shared values). */
export function tradeValue(trade: TradeRow, field: TradeField): unknown {
  return trade[field];
}

/** The trade source's list operation, its cursor parameter and its largest page. */
function tradeSource(ctx: RunContext) {
  const relations = relationsOf(ctx);
  const trades = relations?.trades;
  const operation = trades && op(ctx, trades.operation);
  if (!trades || !operation) return undefined;
  const limit = operation.behaviour.limit;
  return {
    trades,
    operation,
    cursor: operation.behaviour.cursorPaging?.parameter,
    limitParameter: limit?.parameter ?? "limit",
    page: limit?.maximum ?? 500,
  };
}

/** The largest page of the trade source (its x-limit maximum). */
export function tradePage(ctx: RunContext): number {
  return tradeSource(ctx)?.page ?? 0;
}

/** The newest `count` trades (oldest first), at most one page; undefined when they cannot be read. */
export async function newestTrades(
  ctx: RunContext,
  check: CheckName,
  count: number,
  label: string,
  symbol?: string,
): Promise<TradeRow[] | undefined> {
  const source = tradeSource(ctx);
  if (!source) return undefined;
  const served = await readAnswer(
    ctx,
    check,
    source.operation.operationId,
    { [source.limitParameter]: Math.min(count, source.page), ...onSymbol(symbol) },
    label,
  );
  if (!served) return undefined;
  return tradeRows(served.json, source.trades.fields);
}

/** The trades of a list answer as the trade source's fields give them, oldest first; undefined if one is not a trade. */
export function tradeRows(json: unknown, fields: Record<TradeField, string>): TradeRow[] | undefined {
  const items = listAt(json, "") ?? [];
  const trades = items.map((item) => tradeOf(item, fields));
  if (trades.some((t) => t === undefined)) return undefined;
  return (trades as TradeRow[]).sort((a, b) => a.id - b.id);
}

/** The id of the newest trade; null when there is none; undefined when it cannot be read. */
export async function newestTradeId(
  ctx: RunContext,
  check: CheckName,
  label: string,
  symbol?: string,
): Promise<number | null | undefined> {
  const trades = await newestTrades(ctx, check, 1, label, symbol);
  if (trades === undefined) return undefined;
  return trades.at(-1)?.id ?? null;
}

/**
 * The trades with ids from `fromId` to `toId`, read page by page from the trade source's cursor
 * (at most `maxPages`); undefined when they cannot be read (no cursor, a refusal, a bad item).
 */
export async function tradesBetween(
  ctx: RunContext,
  check: CheckName,
  fromId: number,
  toId: number,
  label: string,
  maxPages = 3,
  symbol?: string,
): Promise<TradeRow[] | undefined> {
  const source = tradeSource(ctx);
  if (!source?.cursor) return undefined;
  const out: TradeRow[] = [];
  let next = fromId;
  for (let page = 0; page < maxPages && next <= toId; page++) {
    const size = Math.min(source.page, toId - next + 1);
    const served = await readAnswer(
      ctx,
      check,
      source.operation.operationId,
      { ...onSymbol(symbol), [source.cursor]: next, [source.limitParameter]: size },
      label,
    );
    if (!served) return undefined;
    const got = tradeRows(served.json, source.trades.fields);
    if (!got) return undefined;
    const inRange = got.filter((t) => t.id >= next && t.id <= toId);
    out.push(...inRange);
    if (got.length < size || inRange.length === 0) break;
    next = (inRange.at(-1) as TradeRow).id + 1;
  }
  return out;
}

/**
 * A reading of what moves a fact: the book's version, or the newest trade id. Two equal readings
 * around some reads prove that nothing moved during them (the version changes with every change of
 * the book; trade ids only grow). Undefined when it cannot be read.
 */
export async function witness(
  ctx: RunContext,
  check: CheckName,
  mover: Mover,
  label: string,
  symbol?: string,
): Promise<string | undefined> {
  const relations = relationsOf(ctx);
  if (!relations) return undefined;
  if (mover === "trades") {
    const id = await newestTradeId(ctx, check, `${label}: the newest trade id`, symbol);
    return id === undefined ? undefined : String(id);
  }
  if (!relations.book) return undefined;
  const book = await readAnswer(
    ctx,
    check,
    relations.book.operation,
    onSymbol(symbol),
    `${label}: the book's version`,
  );
  const version = book && valueAt(book.json, relations.book.version);
  return version === undefined || version === null ? undefined : JSON.stringify(version);
}

/** The coverage report: a relation was judged on these operations (their answers were compared). */
export function judged(ctx: RunContext, relation: string, operationIds: readonly string[]): void {
  ctx.session.coverage.relation(relation, operationIds, { judged: true });
}

/** The coverage report: a relation was left unjudged on these operations, and why. */
export function unjudged(
  ctx: RunContext,
  relation: string,
  operationIds: readonly string[],
  why: string,
): void {
  ctx.session.coverage.relation(relation, operationIds, { why });
}

/** Why an operation's answer could not be read for a relation: it cannot be called, or it was refused. */
export function unreadWhy(ctx: RunContext, operationId: string): string {
  const operation = op(ctx, operationId);
  return (operation && unreachable(ctx, operation)) ?? "its answer was refused";
}

/** Decimal places a decimal text shows. */
export function placesOf(text: string): number {
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : text.length - dot - 1;
}

/**
 * Whether a decimal the answer shows is `exact` to its last place: less than one unit of that
 * place away (so rounding and truncation both pass, and one unit more or less fails).
 */
export function sameToLastPlace(shown: unknown, exact: Dec): boolean {
  if (typeof shown !== "string") return false;
  const value = tryParseDec(shown);
  if (value === undefined) return false;
  const diff = value > exact ? value - exact : exact - value;
  return diff < unitOf(placesOf(shown.trim()));
}

/** Two values a relation says are the same: decimals by value, anything else as JSON. */
export function sameValue(a: unknown, b: unknown): boolean {
  const x = tryParseDec(a);
  const y = tryParseDec(b);
  if (x !== undefined && y !== undefined) return x === y;
  return JSON.stringify(a) === JSON.stringify(b);
}

export { parseDec };
