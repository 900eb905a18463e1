// A stand-in exchange on 127.0.0.1 holding a long history, paged as the spec says: historical
// trades by fromId (inclusive, contiguous ids; x-cursor-paging), aggregate trades and an account's
// orders by startTime/endTime (inclusive; the oldest from the start; all_orders refuses a window
// wider than 24 hours with -1127; x-time-window), at most `limit` items (x-limit).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Trade {
  id: number;
  price: string;
  qty: string;
  quoteQty: string;
  time: number;
  isBuyerMaker: boolean;
  isBestMatch: boolean;
}

export interface AggTrade {
  a: number;
  p: string;
  q: string;
  f: number;
  l: number;
  T: number;
  m: boolean;
  M: boolean;
}

export interface Order {
  symbol: string;
  orderId: number;
  clientOrderId: string;
  status: string;
  time: number;
}

export interface PagingExchange {
  baseUrl: string;
  trades: Trade[];
  aggTrades: AggTrade[];
  orders: Order[];
  /** Requests answered, by path. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

const DAY = 86_400_000;

export async function startPagingExchange(options: {
  trades: number;
  orders: number;
  from: number;
  days: number;
}): Promise<PagingExchange> {
  const span = options.days * DAY;
  const trades: Trade[] = Array.from({ length: options.trades }, (_, i) => ({
    id: i,
    price: (30000 + (i % 500) / 100).toFixed(2),
    qty: "0.00100000",
    quoteQty: "30.00000000",
    // Five trades share each millisecond, as the fills of one taker order do.
    time: options.from + Math.floor(i / 5) * Math.floor((5 * span) / options.trades),
    isBuyerMaker: i % 2 === 0,
    isBestMatch: true,
  }));
  const aggTrades: AggTrade[] = trades.map((t) => ({
    a: t.id,
    p: t.price,
    q: t.qty,
    f: t.id,
    l: t.id,
    T: t.time,
    m: t.isBuyerMaker,
    M: true,
  }));
  const orders: Order[] = Array.from({ length: options.orders }, (_, i) => ({
    symbol: "BTCUSDT",
    orderId: 1000 + i * 3,
    clientOrderId: `order-${i}`,
    status: "FILLED",
    time: options.from + Math.floor((i * span) / options.orders),
  }));
  const exchange: PagingExchange = {
    baseUrl: "",
    trades,
    aggTrades,
    orders,
    requests: new Map(),
    close: async () => {},
  };

  const page = <T>(
    items: T[],
    q: URLSearchParams,
    id: (item: T) => number,
    time: (item: T) => number,
    maxSpan?: number,
  ) => {
    const limit = Number(q.get("limit") ?? 500);
    if (!(limit >= 1 && limit <= 1000)) return { error: { code: -1100, msg: "limit" } };
    const start = q.has("startTime") ? Number(q.get("startTime")) : undefined;
    const end = q.has("endTime") ? Number(q.get("endTime")) : undefined;
    const cursor = q.get("fromId") ?? q.get("orderId");
    if (maxSpan !== undefined && start !== undefined && end !== undefined && end - start > maxSpan)
      return { error: { code: -1127, msg: "More than 24 hours between startTime and endTime." } };
    if (cursor !== null) return { items: items.filter((item) => id(item) >= Number(cursor)).slice(0, limit) };
    if (start !== undefined)
      return {
        items: items
          .filter((item) => time(item) >= start && (end === undefined || time(item) <= end))
          .slice(0, limit),
      };
    const upTo = end === undefined ? items : items.filter((item) => time(item) <= end);
    return { items: upTo.slice(Math.max(0, upTo.length - limit)) };
  };

  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      exchange.requests.set(url.pathname, (exchange.requests.get(url.pathname) ?? 0) + 1);
      const q = url.searchParams;
      const result =
        url.pathname === "/api/v3/historicalTrades"
          ? page(
              trades,
              q,
              (t) => t.id,
              (t) => t.time,
            )
          : url.pathname === "/api/v3/aggTrades"
            ? page(
                aggTrades,
                q,
                (t) => t.a,
                (t) => t.T,
              )
            : url.pathname === "/api/v3/allOrders"
              ? page(
                  orders,
                  q,
                  (o) => o.orderId,
                  (o) => o.time,
                  DAY,
                )
              : { error: { code: -1000, msg: "unknown path" } };
      response.writeHead("error" in result ? 400 : 200, { "Content-Type": "application/json" });
      response.end(JSON.stringify("error" in result ? result.error : result.items));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  exchange.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  exchange.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return exchange;
}
