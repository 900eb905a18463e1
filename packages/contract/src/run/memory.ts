/**
 * What a run leaves on the target and what any client can read back of it (--remember FILE):
 * per traded symbol the account's orders (all_orders), its trades (myTrades), the public trades
 * those made, the 1-minute candles that hold them and the 24-hour ticker's ids; the balances of
 * the assets traded; the highest orderId and tradeId seen. `marketapi-contract recall FILE`
 * (recall.ts) reads the same again after the target restarted, and run/persistence.ts judges it.
 * Every read pages through the whole list (orderId and fromId are the spec's cursors), so a long
 * history is read whole.
 */
import { CHECK_NAMES } from "../checks/index.js";
import type { ContractOperation } from "../core/operations.js";
import { encodeParams } from "../http/request.js";
import { VIEWS, viewOperation } from "../kit/account-views.js";
import { describeAnswer, ok } from "../kit/answers.js";
import type { RoundTrip } from "../session/round-trip.js";
import { type CallOptions, Session, type SessionOptions } from "../session/session.js";
import { Recorder } from "../session/verdicts.js";

export const MEMORY_FORMAT = "marketapi-contract memory 1";

export type Item = Record<string, unknown>;

/** What the account shows of one symbol. */
export interface SymbolMemory {
  symbol: string;
  /** all_orders, oldest first. */
  orders: Item[];
  /** myTrades, oldest first; absent where the target does not serve the view. */
  trades?: Item[];
  /** The public trades (historical_trades) of the account's trades, by id. */
  publicTrades: Item[];
  /**
   * The 1-minute candles from the first of the account's trades to the last; the last may still
   * have been open (closeTime after takenAt).
   */
  candles: unknown[][];
  /** The 24-hour ticker's last trade id (-1: none). */
  tickerLastId?: number;
  /** Highest orderId and tradeId seen on the symbol (0: none). */
  floor: { orderId: number; tradeId: number };
}

export interface Memory {
  format: typeof MEMORY_FORMAT;
  /** The target, by its base URL, and when the record was taken (by the target's clock). */
  baseUrl: string;
  takenAt: number;
  symbols: SymbolMemory[];
  /** Free and locked per asset of the traded symbols; absent where the view is not served. */
  balances?: Record<string, { free: string; locked: string }>;
  /** What could not be read, and why. */
  notes: string[];
}

/** A read of the record failed: the target's answer, said with the request. */
export class ReadFailure extends Error {}

const PAGE = 1000;
const MINUTE = 60_000;

/**
 * A session for what recall and custody read and place: no request budget, and no verdict of its
 * own (each caller judges the answers it reads).
 */
export function quietSession(
  options: Pick<SessionOptions, "model" | "baseUrl" | "headers" | "credentials" | "timeoutMs">,
): Session {
  return new Session({
    ...options,
    maxRequests: Number.MAX_SAFE_INTEGER,
    recorder: new Recorder([], [], CHECK_NAMES),
  });
}

/**
 * One request of what recall reads and places: essential (never stopped by the run's budget), its
 * answer judged by the caller alone, not by the answer checks.
 */
export function quietCall(
  session: Session,
  op: ContractOperation,
  values: Record<string, unknown>,
  label: string,
  options: Pick<CallOptions, "connection"> = {},
): Promise<RoundTrip> {
  return session.call({ op, params: encodeParams(op, values) }, label, {
    ...options,
    responseChecks: false,
    essential: true,
  });
}

/** The JSON answer of one read, or a ReadFailure that names the request and the answer. */
export async function read(
  session: Session,
  operationId: string,
  values: Record<string, unknown>,
): Promise<unknown> {
  const op = session.model.operation(operationId) ?? viewOperation(operationId);
  if (!op) throw new ReadFailure(`the spec has no operation ${operationId}`);
  const exchange = await quietCall(session, op, values, `persistence: ${operationId}`);
  if (!ok(exchange)) {
    const where = `${exchange.request.method} ${new URL(exchange.request.url).pathname}`;
    throw new ReadFailure(`${where} ${JSON.stringify(values)}: ${describeAnswer(exchange)}`);
  }
  return exchange.response?.json;
}

async function served(
  session: Session,
  operationId: string,
  values: Record<string, unknown>,
): Promise<unknown> {
  try {
    return await read(session, operationId, values);
  } catch (error) {
    if (error instanceof ReadFailure && /status (404|405|501)\b/.test(error.message)) return undefined;
    throw error;
  }
}

function list(body: unknown, what: string): Item[] {
  if (!Array.isArray(body))
    throw new ReadFailure(`${what}: expected a list, got ${JSON.stringify(body)?.slice(0, 80)}`);
  return body as Item[];
}

/** Pages a list by its id cursor (inclusive) until a page comes back short. */
async function paged(
  fetch: (from: number | undefined) => Promise<Item[] | undefined>,
  idOf: (item: Item) => number,
): Promise<Item[] | undefined> {
  const all: Item[] = [];
  let from: number | undefined;
  for (;;) {
    const page = await fetch(from);
    if (page === undefined) return from === undefined ? undefined : all;
    const fresh = page.filter((item) => from === undefined || idOf(item) >= from);
    all.push(...fresh);
    if (page.length < PAGE || fresh.length === 0) return all;
    from = idOf(page[page.length - 1]!) + 1;
  }
}

const num = (value: unknown): number => (typeof value === "number" ? value : Number(value));

export async function allOrders(session: Session, symbol: string): Promise<Item[]> {
  const orders = await paged(
    async (from) =>
      list(
        await read(session, "all_orders", {
          symbol,
          limit: PAGE,
          ...(from !== undefined ? { orderId: from } : {}),
        }),
        "all_orders",
      ),
    (o) => num(o.orderId),
  );
  return orders ?? [];
}

export async function myTrades(session: Session, symbol: string): Promise<Item[] | undefined> {
  return paged(
    async (from) => {
      const body = await served(session, VIEWS.myTrades, {
        symbol,
        limit: PAGE,
        ...(from !== undefined ? { fromId: from } : {}),
      });
      return body === undefined ? undefined : list(body, "myTrades");
    },
    (t) => num(t.id),
  );
}

/** The public trades whose ids are given (historical_trades from the lowest, paged). */
export async function publicTrades(
  session: Session,
  symbol: string,
  ids: readonly number[],
): Promise<Item[]> {
  if (ids.length === 0) return [];
  const wanted = new Set(ids);
  const last = Math.max(...ids);
  const found: Item[] = [];
  let from = Math.min(...ids);
  while (from <= last) {
    const page = list(
      await read(session, "historical_trades", { symbol, fromId: from, limit: PAGE }),
      "historical_trades",
    );
    found.push(...page.filter((t) => wanted.has(num(t.id))));
    if (page.length === 0) break;
    const next = num(page[page.length - 1]!.id) + 1;
    if (!(next > from)) break;
    from = next;
  }
  return found;
}

/** The 1-minute candles from the minute of `first` to that of `last`, the one still open included. */
export async function candlesOf(
  session: Session,
  symbol: string,
  first: number,
  last: number,
): Promise<unknown[][] | undefined> {
  const startTime = Math.floor(first / MINUTE) * MINUTE;
  const body = await served(session, VIEWS.klines, {
    symbol,
    interval: "1m",
    startTime,
    endTime: last,
    limit: PAGE,
  });
  if (body === undefined) return undefined;
  return (list(body, "klines") as unknown as unknown[][]).filter((c) => Array.isArray(c));
}

export async function tickerLastId(session: Session, symbol: string): Promise<number | undefined> {
  const body = await read(session, "ticker_price_change_statistics24hr", { symbol });
  const lastId = typeof body === "object" && body !== null ? (body as Item).lastId : undefined;
  return typeof lastId === "number" ? lastId : undefined;
}

export async function balances(
  session: Session,
  assets: ReadonlySet<string>,
): Promise<Memory["balances"] | undefined> {
  const body = await served(session, VIEWS.account, {});
  if (body === undefined) return undefined;
  const rows = (body as { balances?: unknown }).balances;
  if (!Array.isArray(rows))
    throw new ReadFailure(`account: no balances list in ${JSON.stringify(body).slice(0, 80)}`);
  const out: NonNullable<Memory["balances"]> = {};
  for (const row of rows as Item[]) {
    const asset = String(row.asset);
    if (assets.has(asset)) out[asset] = { free: String(row.free), locked: String(row.locked) };
  }
  for (const asset of assets) out[asset] ??= { free: "0", locked: "0" };
  return out;
}

/** Reads what the account shows of each symbol and of its assets' balances. */
export async function readMemory(
  session: Session,
  baseUrl: string,
  symbols: ReadonlyArray<{ symbol: string; baseAsset?: string; quoteAsset?: string }>,
): Promise<Memory> {
  const takenAt = session.now();
  const notes: string[] = [];
  const memory: SymbolMemory[] = [];
  const assets = new Set<string>();
  for (const { symbol, baseAsset, quoteAsset } of symbols) {
    if (baseAsset) assets.add(baseAsset);
    if (quoteAsset) assets.add(quoteAsset);
    const orders = await allOrders(session, symbol);
    const trades = await myTrades(session, symbol);
    if (trades === undefined) notes.push(`${symbol}: myTrades is not served; trades not remembered`);
    const ids = (trades ?? []).map((t) => num(t.id));
    const times = (trades ?? []).map((t) => num(t.time));
    const candles =
      times.length > 0 ? await candlesOf(session, symbol, Math.min(...times), Math.max(...times)) : [];
    if (candles === undefined) notes.push(`${symbol}: klines is not served; candles not remembered`);
    const lastId = await tickerLastId(session, symbol);
    memory.push({
      symbol,
      orders,
      ...(trades ? { trades } : {}),
      publicTrades: await publicTrades(session, symbol, ids),
      candles: candles ?? [],
      ...(lastId !== undefined ? { tickerLastId: lastId } : {}),
      floor: {
        orderId: Math.max(0, ...orders.map((o) => num(o.orderId))),
        tradeId: Math.max(0, ...ids, lastId ?? 0),
      },
    });
  }
  const held = await balances(session, assets);
  if (held === undefined) notes.push("account is not served; balances not remembered");
  return {
    format: MEMORY_FORMAT,
    baseUrl,
    takenAt,
    symbols: memory,
    ...(held ? { balances: held } : {}),
    notes,
  };
}
