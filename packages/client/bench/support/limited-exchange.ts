// A stand-in exchange on 127.0.0.1 that enforces rate limits as the live API does: request weight
// per minute (each request weighs what the spec's x-weight says, tiers included) and placed orders
// per 10 seconds, in fixed windows on its clock; over a limit a 429 with Retry-After, and after 10
// of those in a minute a ban (418 with Retry-After) that doubles each time. Every answer carries
// the counters (X-MBX-USED-WEIGHT-1M, X-MBX-ORDER-COUNT-10S). It records what it answered.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { requestWeight } from "@marketapi/pacer";
import { type OperationFacts, operationFacts, operationTable } from "../../src/index.js";

export interface Limits {
  weightPerMinute: number;
  ordersPer10s: number;
}

export interface LimitedExchange {
  baseUrl: string;
  /** Statuses answered, by status. */
  answered: Map<number, number>;
  /** The clock time of the first and last request answered 200. */
  firstAt: number;
  lastAt: number;
  /** Weight and orders accepted. */
  weight: number;
  orders: number;
  close(): Promise<void>;
}

const routes = new Map(
  Object.entries(operationTable).map(([id, op]) => [
    `${op.method} ${op.path}`,
    id as keyof typeof operationTable,
  ]),
);

export async function startLimitedExchange(limits: Limits, now: () => number): Promise<LimitedExchange> {
  const weight = { window: -1, used: 0 };
  const orders = { window: -1, used: 0 };
  const refusals = { window: -1, used: 0 };
  let bannedUntil = 0;
  let bans = 0;
  const roll = (counter: { window: number; used: number }, length: number, at: number) => {
    const window = Math.floor(at / length);
    if (window !== counter.window) Object.assign(counter, { window, used: 0 });
  };
  const exchange: LimitedExchange = {
    baseUrl: "",
    answered: new Map(),
    firstAt: Number.POSITIVE_INFINITY,
    lastAt: 0,
    weight: 0,
    orders: 0,
    close: async () => {},
  };
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const at = now();
      const url = new URL(request.url ?? "/", "http://127.0.0.1");
      const id = routes.get(`${request.method} ${url.pathname}`);
      const params = Object.fromEntries(url.searchParams);
      const cost = id ? requestWeight((operationFacts as OperationFacts)[id]?.weight ?? 1, params) : 1;
      const placesOrder = id === "new_order";
      roll(weight, 60_000, at);
      roll(orders, 10_000, at);
      roll(refusals, 60_000, at);
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        exchange.answered.set(status, (exchange.answered.get(status) ?? 0) + 1);
        if (status === 200) {
          exchange.firstAt = Math.min(exchange.firstAt, at);
          exchange.lastAt = Math.max(exchange.lastAt, at);
        }
        response.writeHead(status, {
          "Content-Type": "application/json",
          "X-MBX-USED-WEIGHT-1M": String(weight.used),
          "X-MBX-ORDER-COUNT-10S": String(orders.used),
          ...headers,
        });
        response.end(JSON.stringify(body));
      };
      const secondsLeft = (length: number) => String(Math.max(1, Math.ceil((length - (at % length)) / 1000)));
      if (at < bannedUntil)
        return answer(
          418,
          { code: -1003, msg: "IP banned" },
          { "Retry-After": String(Math.ceil((bannedUntil - at) / 1000)) },
        );
      if (weight.used + cost > limits.weightPerMinute) {
        if (refusals.used >= 10) {
          bannedUntil = at + 120_000 * 2 ** bans++;
          return answer(
            418,
            { code: -1003, msg: "IP banned" },
            { "Retry-After": String((bannedUntil - at) / 1000) },
          );
        }
        refusals.used++;
        return answer(
          429,
          { code: -1003, msg: "Too much request weight used" },
          { "Retry-After": secondsLeft(60_000) },
        );
      }
      weight.used += cost;
      if (placesOrder && orders.used >= limits.ordersPer10s)
        return answer(
          429,
          { code: -1015, msg: "Too many new orders" },
          { "Retry-After": secondsLeft(10_000) },
        );
      exchange.weight += cost;
      if (placesOrder) {
        orders.used++;
        exchange.orders++;
        return answer(200, { symbol: params.symbol, orderId: exchange.orders, status: "NEW" });
      }
      answer(200, id === "order_book" ? { lastUpdateId: 1, bids: [], asks: [] } : {});
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
