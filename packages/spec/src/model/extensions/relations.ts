// x-relations: the facts that two or more operations report, each stated once (docs/extensions.md).
import { describeValue, SpecModelError } from "../spec-model-error.js";
import {
  type FactSource,
  readFactSource,
  readObject,
  readOneOf,
  readPointer,
  readString,
  readStrings,
} from "./behaviour-fields.js";
import type { ExtensionDescriptor } from "./extension.js";

/** The fields of a trade that relations name. */
export const TRADE_FIELDS = ["id", "price", "qty", "quoteQty", "time", "buyerMaker", "bestMatch"] as const;
export type TradeField = (typeof TRADE_FIELDS)[number];

/**
 * What a statistic of the trades in a window is: their number, the first and last trade's id,
 * price, quantity and time, the highest and lowest price, Σ qty, Σ quoteQty, the volume-weighted
 * average price (Σ quoteQty / Σ qty), and the change from the first price to the last (absolute,
 * and in percent of the first).
 */
export const WINDOW_MEASURES = [
  "count",
  "firstId",
  "lastId",
  "firstPrice",
  "lastPrice",
  "lastQty",
  "lastTime",
  "highPrice",
  "lowPrice",
  "volume",
  "quoteVolume",
  "weightedAverage",
  "change",
  "changePercent",
] as const;
export type WindowMeasure = (typeof WINDOW_MEASURES)[number];

/** What moves a fact: a change of the order book, or a new trade. */
export type Mover = "book" | "trades";

/** Where the trades are listed, and where each field sits in one of them. */
export interface TradeSource {
  operation: string;
  fields: Record<TradeField, string>;
}

/** One operation's report of a shared fact: the pointer of each of its values. */
export interface FactReport {
  operation: string;
  /** In a list answer, the item that reports it: the first, or the last (the newest of an ascending list). */
  item?: "first" | "last";
  values: Record<string, string>;
}

/** One fact reported by several operations: all of them must report the same values. */
export interface SharedFact {
  name: string;
  movesWith: Mover;
  reports: FactReport[];
}

export type WindowBounds =
  /** The answer states its window: the trades from `start` to `end`, both inclusive. */
  | { start: string; end: string }
  /** The last `minutes` minutes (the pointer of the count in the answer) before the answer was made. */
  | { minutes: string };

/** Statistics of an answer that are functions of the trades in its window. */
export interface TradeWindow {
  name: string;
  operation: string;
  window: WindowBounds;
  /** The pointer in the answer of each measure it reports. */
  measures: Partial<Record<WindowMeasure, string>>;
  /** The values the answer holds when no trade falls in the window (pointer → value). */
  empty: Record<string, number>;
}

/** A list whose items each cover a contiguous range of trade ids, the whole list without gaps. */
export interface AggregateCover {
  name: string;
  operation: string;
  /** Pointers, in an item, of the first and last trade id it covers. */
  first: string;
  last: string;
  /** Trade fields every covered trade shares with the item (field → pointer in the item). */
  same: Partial<Record<TradeField, string>>;
  /** Trade fields whose sum over the covered trades the item holds (field → pointer). */
  sums: Partial<Record<TradeField, string>>;
}

/** An order as each read and each cancel reports it. */
export interface OrderViews {
  name: string;
  /** Pointer of the order id in an order (in every answer that reports orders). */
  id: string;
  /** Pointer of the order status in an order. */
  status: string;
  /** The fields every report of the same order at the same moment agrees on. */
  fields: string[];
  /** Operations that read orders (one order, or a list). */
  reads: string[];
  /** Operations that report orders at the moment of the request (placing, cancelling). */
  reports: string[];
  /** The operation that lists the open orders, and the statuses of exactly the orders it lists. */
  open: { operation: string; statuses: string[] };
  /** Statuses an order never leaves. */
  final: string[];
}

export interface Relations {
  filledFrom: FactSource;
  /** Where the trades are listed (needed when a relation is about trades). */
  trades?: TradeSource;
  /**
   * The operation that answers the book, and its field that changes with every change of the book
   * (needed when a fact moves with the book).
   */
  book?: { operation: string; version: string };
  sharedFacts: SharedFact[];
  tradeWindows: TradeWindow[];
  aggregates: AggregateCover[];
  orders: OrderViews[];
}

const AT = "/x-relations";

/** The document's `x-relations`; undefined when absent. `operations`: the operationIds of the document. */
export function readRelations(value: unknown, operations: ReadonlySet<string>): Relations | undefined {
  if (value === undefined) return undefined;
  const object = readObject(
    value,
    AT,
    "an object with filledFrom and any of trades, book, sharedFacts, tradeWindows, aggregates and orders",
  );
  const operation = (o: Record<string, unknown>, key: string, where: string) => {
    const id = readString(o, key, where);
    if (!operations.has(id))
      throw new SpecModelError(`${where}/${key}`, "the operationId of an operation", describeValue(id));
    return id;
  };
  const operationList = (o: Record<string, unknown>, key: string, where: string) =>
    nonEmpty(o, key, where).map((id, i) => {
      if (!operations.has(id))
        throw new SpecModelError(
          `${where}/${key}/${i}`,
          "the operationId of an operation",
          describeValue(id),
        );
      return id;
    });
  const list = <T>(key: string, read: (item: Record<string, unknown>, at: string) => T): T[] => {
    const items = object[key] ?? [];
    if (!Array.isArray(items)) throw new SpecModelError(`${AT}/${key}`, "a list", describeValue(items));
    return items.map((item, i) =>
      read(readObject(item, `${AT}/${key}/${i}`, "an object"), `${AT}/${key}/${i}`),
    );
  };

  const relations: Relations = {
    filledFrom: readFactSource(object, AT),
    ...(object.trades !== undefined ? { trades: readTradeSource(object.trades, operation) } : {}),
    ...(object.book !== undefined ? { book: readBook(object.book, operation) } : {}),
    sharedFacts: list("sharedFacts", (fact, at) => readSharedFact(fact, at, operation)),
    tradeWindows: list("tradeWindows", (window, at) => readTradeWindow(window, at, operation)),
    aggregates: list("aggregates", (cover, at) => readAggregate(cover, at, operation)),
    orders: list("orders", (views, at) => ({
      name: readString(views, "name", at),
      id: readPointer(views, "id", at),
      status: readPointer(views, "status", at),
      fields: pointers(views, "fields", at),
      reads: operationList(views, "reads", at),
      reports: operationList(views, "reports", at),
      open: (() => {
        const open = readObject(views.open, `${at}/open`, "an object with operation and statuses");
        return {
          operation: operation(open, "operation", `${at}/open`),
          statuses: nonEmpty(open, "statuses", `${at}/open`),
        };
      })(),
      final: nonEmpty(views, "final", at),
    })),
  };
  const ofTrades =
    relations.tradeWindows.length > 0 ||
    relations.aggregates.length > 0 ||
    relations.sharedFacts.some((fact) => fact.movesWith === "trades");
  if (ofTrades && !relations.trades)
    throw new SpecModelError(`${AT}/trades`, "the trade source (relations of trades are stated)", "none");
  if (relations.sharedFacts.some((fact) => fact.movesWith === "book") && !relations.book)
    throw new SpecModelError(`${AT}/book`, "the book (a fact moves with it)", "none");
  return relations;
}

function readTradeSource(value: unknown, operation: OperationReader): TradeSource {
  const trades = readObject(value, `${AT}/trades`, "an object with operation and fields");
  const fields = readObject(trades.fields, `${AT}/trades/fields`, "the pointer of each trade field");
  return {
    operation: operation(trades, "operation", `${AT}/trades`),
    fields: Object.fromEntries(
      TRADE_FIELDS.map((field) => [field, readPointer(fields, field, `${AT}/trades/fields`)]),
    ) as Record<TradeField, string>,
  };
}

function readBook(value: unknown, operation: OperationReader): { operation: string; version: string } {
  const book = readObject(value, `${AT}/book`, "an object with operation and version");
  return {
    operation: operation(book, "operation", `${AT}/book`),
    version: readPointer(book, "version", `${AT}/book`),
  };
}

type OperationReader = (o: Record<string, unknown>, key: string, where: string) => string;

function nonEmpty(object: Record<string, unknown>, key: string, where: string): string[] {
  const values = readStrings(object, key, where);
  if (values.length === 0)
    throw new SpecModelError(`${where}/${key}`, "a non-empty list", describeValue(values));
  return values;
}

function pointers(object: Record<string, unknown>, key: string, where: string): string[] {
  const values = nonEmpty(object, key, where);
  values.forEach((value, i) => {
    if (value !== "" && !value.startsWith("/"))
      throw new SpecModelError(
        `${where}/${key}/${i}`,
        'a JSON Pointer ("" or starting with "/")',
        describeValue(value),
      );
  });
  return values;
}

/** A map from names (each one of `allowed`, when given) to JSON Pointers. */
function pointerMap<K extends string>(
  object: Record<string, unknown>,
  key: string,
  where: string,
  allowed?: readonly K[],
): Partial<Record<K, string>> {
  const map = readObject(object[key], `${where}/${key}`, "an object of names and JSON Pointers");
  const out: Partial<Record<K, string>> = {};
  for (const name of Object.keys(map)) {
    if (allowed && !(allowed as readonly string[]).includes(name))
      throw new SpecModelError(
        `${where}/${key}/${name}`,
        `one of ${allowed.join(", ")}`,
        describeValue(name),
      );
    out[name as K] = readPointer(map, name, `${where}/${key}`);
  }
  return out;
}

function readSharedFact(fact: Record<string, unknown>, at: string, operation: OperationReader): SharedFact {
  const reports = fact.reports;
  if (!Array.isArray(reports) || reports.length < 2)
    throw new SpecModelError(`${at}/reports`, "a list of at least two reports", describeValue(reports));
  const read = reports.map((entry, i): FactReport => {
    const where = `${at}/reports/${i}`;
    const report = readObject(entry, where, "an object with operation and values");
    const values = pointerMap<string>(report, "values", where) as Record<string, string>;
    if (Object.keys(values).length === 0)
      throw new SpecModelError(`${where}/values`, "at least one value", describeValue(values));
    return {
      operation: operation(report, "operation", where),
      ...(report.item !== undefined
        ? { item: readOneOf(report, "item", where, ["first", "last"] as const) }
        : {}),
      values,
    };
  });
  // Every value is reported by at least two operations, or there is nothing to compare.
  const counts = new Map<string, number>();
  for (const report of read)
    for (const name of Object.keys(report.values)) counts.set(name, (counts.get(name) ?? 0) + 1);
  for (const [name, count] of counts)
    if (count < 2)
      throw new SpecModelError(`${at}/reports`, `the value "${name}" in at least two reports`, "it in one");
  return {
    name: readString(fact, "name", at),
    movesWith: readOneOf(fact, "movesWith", at, ["book", "trades"] as const),
    reports: read,
  };
}

function readTradeWindow(
  window: Record<string, unknown>,
  at: string,
  operation: OperationReader,
): TradeWindow {
  const bounds = readObject(window.window, `${at}/window`, "an object with start and end, or with minutes");
  const read: WindowBounds =
    bounds.minutes !== undefined
      ? { minutes: readPointer(bounds, "minutes", `${at}/window`) }
      : {
          start: readPointer(bounds, "start", `${at}/window`),
          end: readPointer(bounds, "end", `${at}/window`),
        };
  const measures = pointerMap(window, "measures", at, WINDOW_MEASURES);
  if (Object.keys(measures).length === 0)
    throw new SpecModelError(`${at}/measures`, "at least one measure", describeValue(measures));
  const emptyObject =
    window.empty === undefined
      ? {}
      : readObject(window.empty, `${at}/empty`, "an object of JSON Pointers and numbers");
  const empty: Record<string, number> = {};
  for (const [pointer, value] of Object.entries(emptyObject)) {
    if (pointer !== "" && !pointer.startsWith("/"))
      throw new SpecModelError(`${at}/empty`, "JSON Pointers as keys", describeValue(pointer));
    if (typeof value !== "number")
      throw new SpecModelError(`${at}/empty/${pointer}`, "a number", describeValue(value));
    empty[pointer] = value;
  }
  return {
    name: readString(window, "name", at),
    operation: operation(window, "operation", at),
    window: read,
    measures,
    empty,
  };
}

function readAggregate(
  cover: Record<string, unknown>,
  at: string,
  operation: OperationReader,
): AggregateCover {
  return {
    name: readString(cover, "name", at),
    operation: operation(cover, "operation", at),
    first: readPointer(cover, "first", at),
    last: readPointer(cover, "last", at),
    same: pointerMap(cover, "same", at, TRADE_FIELDS),
    sums: pointerMap(cover, "sums", at, TRADE_FIELDS),
  };
}

/** Every operation a relation names (the contract tester judges each of them). */
export function relationOperations(relations: Relations): Set<string> {
  return new Set([
    ...(relations.trades ? [relations.trades.operation] : []),
    ...(relations.book ? [relations.book.operation] : []),
    ...relations.sharedFacts.flatMap((fact) => fact.reports.map((report) => report.operation)),
    ...relations.tradeWindows.map((window) => window.operation),
    ...relations.aggregates.map((cover) => cover.operation),
    ...relations.orders.flatMap((views) => [...views.reads, ...views.reports, views.open.operation]),
  ]);
}

export const relationsExtension = {
  key: "x-relations",
  name: "relations",
  on: "document",
  field: "SpecModel.relations",
  constrains: ["behaviour"],
  summary:
    "facts several operations report, stated once: shared values, statistics of trade windows, aggregates covering trades, an order's views",
  read: readRelations,
} as const satisfies ExtensionDescriptor;
