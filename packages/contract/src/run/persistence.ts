/**
 * The persistence judgement: what a target shows after a restart, against what it showed when a
 * run left it (run/memory.ts). Acknowledged orders and trades are facts: each remembered order
 * is still there with every field it had (an order open when remembered keeps what its placement
 * fixed; its fills may go on), each trade with every field, the closed candles that held them
 * unchanged, the balances unchanged while nothing traded on the account since, and no id at or
 * below a remembered one given to anything new. Pure: recall.ts reads, this compares.
 */
import type { Item, Memory, SymbolMemory } from "./memory.js";

export interface Finding {
  /** What changed: "BTCUSDT order 12 (clientOrderId mct-…)", "balance of USDT". */
  subject: string;
  message: string;
}

export interface Judgement {
  findings: Finding[];
  /** Assertions that held. */
  held: number;
  notes: string[];
}

const OPEN_STATUSES = new Set(["NEW", "PARTIALLY_FILLED", "PENDING_NEW"]);
/** What an order's placement fixes: the same while it is open and its fills go on. */
const PLACEMENT_FIELDS = [
  "symbol",
  "orderId",
  "orderListId",
  "clientOrderId",
  "price",
  "origQty",
  "type",
  "side",
  "timeInForce",
  "stopPrice",
  "icebergQty",
  "time",
  "selfTradePreventionMode",
];

export const isOpen = (order: Item): boolean => OPEN_STATUSES.has(String(order.status));

const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));
const show = (value: unknown): string => (value === undefined ? "absent" : JSON.stringify(value));

/** Each field of `before` that `after` does not show the same, as "field: before → after". */
export function changedFields(
  before: Item,
  after: Item,
  fields: readonly string[] = Object.keys(before),
): string[] {
  const changes: string[] = [];
  for (const field of fields) {
    if (!(field in before)) continue;
    if (JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      changes.push(`${field}: ${show(before[field])} → ${show(after[field])}`);
  }
  return changes;
}

export function orderSubject(symbol: string, order: Item): string {
  return `${symbol} order ${show(order.orderId)} (clientOrderId ${show(order.clientOrderId)})`;
}

/** The fields of a remembered order an answer must show as they were. */
export function fieldsKept(order: Item): string[] {
  return OPEN_STATUSES.has(String(order.status)) ? PLACEMENT_FIELDS : Object.keys(order);
}

/** One remembered order against the same order read again (undefined: not found). */
export function judgeOrder(symbol: string, before: Item, after: Item | undefined, how: string): Finding[] {
  const subject = orderSubject(symbol, before);
  if (after === undefined) return [{ subject, message: `${how}: not found` }];
  const changes = changedFields(before, after, fieldsKept(before));
  return changes.length > 0 ? [{ subject, message: `${how}: ${changes.join("; ")}` }] : [];
}

/**
 * A lookup by origClientOrderId: the remembered order, or a newer order given the same client
 * order id once the remembered one closed (the spec: "else the newest").
 */
export function judgeClientIdLookup(
  symbol: string,
  before: Item,
  after: Item | undefined,
  floor: number,
): Finding[] {
  if (
    after !== undefined &&
    after.clientOrderId === before.clientOrderId &&
    num(after.orderId) > floor &&
    !OPEN_STATUSES.has(String(before.status))
  )
    return [];
  return judgeOrder(symbol, before, after, "query_order by origClientOrderId");
}

/**
 * The order each client order id finds (query_order by origClientOrderId), by the spec: the open
 * order with it, else the newest. One per client order id of `orders`.
 */
export function clientIdTargets(orders: readonly Item[]): Item[] {
  const groups = new Map<string, Item[]>();
  for (const order of orders) {
    const id = order.clientOrderId;
    if (typeof id !== "string" || id === "") continue;
    groups.set(id, [...(groups.get(id) ?? []), order]);
  }
  const newest = (a: Item, b: Item) => num(a.time) - num(b.time) || num(a.orderId) - num(b.orderId);
  return [...groups.values()].map(
    (group) => group.find((o) => OPEN_STATUSES.has(String(o.status))) ?? [...group].sort(newest).at(-1)!,
  );
}

/**
 * A list item's identity: a trade by its id and the order it filled (a trade between two orders
 * of the account is in its myTrades twice, once per side), an order by its orderId.
 */
function keyOf(item: Item, key: string): string {
  return key === "id" && item.orderId !== undefined
    ? `${num(item.id)}/${num(item.orderId)}`
    : String(num(item[key]));
}

function byId(items: readonly Item[], key: string): Map<string, Item> {
  return new Map(items.map((item) => [keyOf(item, key), item]));
}

/** Items of a list that were not remembered although their id is at or below the remembered floor. */
function appeared(before: readonly Item[], after: readonly Item[], key: string, floor: number): Item[] {
  const known = byId(before, key);
  return after.filter((item) => num(item[key]) <= floor && !known.has(keyOf(item, key)));
}

export function judgeSymbol(before: SymbolMemory, after: SymbolMemory, takenAt: number): Judgement {
  const findings: Finding[] = [];
  const notes: string[] = [];
  let held = 0;
  const { symbol } = before;
  const count = (found: Finding[]) => {
    if (found.length === 0) held += 1;
    findings.push(...found);
  };

  const orders = byId(after.orders, "orderId");
  for (const order of before.orders)
    count(judgeOrder(symbol, order, orders.get(keyOf(order, "orderId")), "all_orders"));
  for (const order of appeared(before.orders, after.orders, "orderId", before.floor.orderId))
    findings.push({
      subject: orderSubject(symbol, order),
      message: `all_orders: an order with an id at or below the remembered highest (${before.floor.orderId}) that was not there`,
    });

  const lists: Array<[string, Item[] | undefined, Item[] | undefined]> = [
    ["myTrades", before.trades, after.trades],
    ["historical_trades", before.publicTrades, after.publicTrades],
  ];
  for (const [name, was, now] of lists) {
    if (was === undefined) continue;
    if (now === undefined) {
      findings.push({ subject: `${symbol} ${name}`, message: "served when remembered, not served now" });
      continue;
    }
    const trades = byId(now, "id");
    for (const trade of was) {
      const subject = `${symbol} trade ${show(trade.id)}${trade.orderId !== undefined ? ` (order ${show(trade.orderId)})` : ""}`;
      const again = trades.get(keyOf(trade, "id"));
      if (!again) {
        findings.push({ subject, message: `${name}: not found` });
        continue;
      }
      const changes = changedFields(trade, again);
      count(changes.length > 0 ? [{ subject, message: `${name}: ${changes.join("; ")}` }] : []);
    }
    if (name === "myTrades")
      for (const trade of appeared(was, now, "id", before.floor.tradeId))
        findings.push({
          subject: `${symbol} trade ${show(trade.id)} (order ${show(trade.orderId)})`,
          message: `myTrades: a trade with an id at or below the remembered highest (${before.floor.tradeId}) that was not there`,
        });
  }

  // A candle still open when remembered is judged only while nothing traded since on the symbol.
  const quiet = before.tickerLastId !== undefined && after.tickerLastId === before.tickerLastId;
  const candles = new Map(after.candles.map((c) => [num(c[0]), c]));
  const judged = before.candles.filter((c) => num(c[6]) < takenAt || quiet);
  if (judged.length < before.candles.length)
    notes.push(`${symbol}: the candle open when remembered not judged: the symbol traded since`);
  for (const candle of judged) {
    const subject = `${symbol} 1m candle opening ${new Date(num(candle[0])).toISOString()}`;
    const again = candles.get(num(candle[0]));
    if (!again) findings.push({ subject, message: "klines: not found" });
    else if (JSON.stringify(again) !== JSON.stringify(candle))
      findings.push({ subject, message: `klines: ${JSON.stringify(candle)} → ${JSON.stringify(again)}` });
    else held += 1;
  }

  if (before.tickerLastId !== undefined && before.tickerLastId >= 0) {
    if (after.tickerLastId === undefined || after.tickerLastId < before.tickerLastId)
      findings.push({
        subject: `${symbol} 24-hour ticker`,
        message: `lastId ${show(after.tickerLastId)} is below the remembered ${before.tickerLastId}`,
      });
    else held += 1;
  }
  return { findings, held, notes };
}

/**
 * Whether the account traded, or holds an order, placed after the record: its balances may then
 * differ. An order placed and cancelled since without a fill moves nothing.
 */
export function accountMoved(before: Memory, after: Memory): boolean {
  return after.symbols.some((now) => {
    const was = before.symbols.find((s) => s.symbol === now.symbol);
    if (!was) return false;
    return (
      now.orders.some(
        (o) =>
          num(o.orderId) > was.floor.orderId &&
          (OPEN_STATUSES.has(String(o.status)) || Number(o.executedQty) !== 0),
      ) || (now.trades ?? []).some((t) => num(t.id) > was.floor.tradeId)
    );
  });
}

export function judgeBalances(before: Memory, after: Memory): Judgement {
  if (!before.balances) return { findings: [], held: 0, notes: [] };
  if (!after.balances)
    return {
      findings: [{ subject: "account", message: "served when remembered, not served now" }],
      held: 0,
      notes: [],
    };
  if (accountMoved(before, after))
    return {
      findings: [],
      held: 0,
      notes: ["balances not judged: the account placed or traded since the record"],
    };
  const findings: Finding[] = [];
  let held = 0;
  for (const [asset, was] of Object.entries(before.balances)) {
    const now = after.balances[asset];
    const changes = now ? changedFields(was, now) : ["absent"];
    if (changes.length > 0)
      findings.push({ subject: `balance of ${asset}`, message: `account: ${changes.join("; ")}` });
    else held += 1;
  }
  return { findings, held, notes: [] };
}

/** The whole judgement of the lists, per symbol, and the balances. */
export function judgeMemory(before: Memory, after: Memory): Judgement {
  const out: Judgement = { findings: [], held: 0, notes: [] };
  const add = (j: Judgement) => {
    out.findings.push(...j.findings);
    out.held += j.held;
    out.notes.push(...j.notes);
  };
  for (const was of before.symbols) {
    const now = after.symbols.find((s) => s.symbol === was.symbol);
    if (!now) out.findings.push({ subject: was.symbol, message: "not read again" });
    else add(judgeSymbol(was, now, before.takenAt));
  }
  add(judgeBalances(before, after));
  return out;
}
