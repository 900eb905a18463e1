// A stand-in for the exchange on 127.0.0.1 whose faults a test scripts, request by request: it
// accepts orders (keeping them by client order id), answers query_order by origClientOrderId
// (-2013 when unknown) and server_time (with a clock offset), checks signed requests' timestamps
// (-1021), and can answer 429 / 418 / 503, drop the connection before or after accepting an
// order, answer 503 after accepting one, or never answer.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the stand-in does with one request. */
export type Fault =
  | { kind: "answer" }
  | { kind: "status"; status: number; headers?: Record<string, string>; body?: unknown }
  /** Closes the connection without an answer; with `accept`, after accepting the order. */
  | { kind: "drop"; accept: boolean }
  /** Accepts the order, then answers 503 as a server that stopped would. */
  | { kind: "unavailable-after-accept" }
  /** Never answers (the client's timeout ends it). */
  | { kind: "hang" };

export interface Arrival {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The stand-in's clock when the request arrived. */
  at: number;
}

export interface PlacedOrder {
  orderId: number;
  clientOrderId: string;
  symbol: string;
  side: string;
  type: string;
  status: string;
}

export interface FaultyExchange {
  baseUrl: string;
  arrivals: Arrival[];
  orders: PlacedOrder[];
  /** The fault for the next request of this operation path (`POST /api/v3/order`), once each. */
  script(route: string, ...faults: Fault[]): void;
  /** The server's clock is this far ahead of the machine's (ms). */
  clockOffsetMs: number;
  /** Refuse signed requests whose timestamp is further than recvWindow from the server's clock (-1021). */
  checkTimestamps: boolean;
  reset(): void;
  close(): Promise<void>;
}

export async function startFaultyExchange(): Promise<FaultyExchange> {
  const scripts = new Map<string, Fault[]>();
  const hanging = new Set<ServerResponse>();
  let nextOrderId = 1;
  const exchange: FaultyExchange = {
    baseUrl: "",
    arrivals: [],
    orders: [],
    clockOffsetMs: 0,
    checkTimestamps: false,
    script(route, ...faults) {
      scripts.set(route, [...(scripts.get(route) ?? []), ...faults]);
    },
    reset() {
      scripts.clear();
      exchange.arrivals.length = 0;
      exchange.orders.length = 0;
      exchange.clockOffsetMs = 0;
      exchange.checkTimestamps = false;
    },
    close: async () => {},
  };
  const now = () => Date.now() + exchange.clockOffsetMs;

  const handle = (request: IncomingMessage, body: string, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const query = new URLSearchParams(url.search);
    for (const [name, value] of new URLSearchParams(body)) query.append(name, value);
    const method = request.method ?? "GET";
    exchange.arrivals.push({ method, path: url.pathname, query, at: Date.now() });
    const route = `${method} ${url.pathname}`;
    const fault = scripts.get(route)?.shift() ?? { kind: "answer" };
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "Content-Type": "application/json", ...headers });
      response.end(JSON.stringify(value));
    };
    if (fault.kind === "hang") {
      hanging.add(response);
      return;
    }
    if (fault.kind === "drop" && !fault.accept) {
      request.socket.destroy();
      return;
    }
    if (fault.kind === "status") {
      json(fault.status, fault.body ?? { code: -1003, msg: `status ${fault.status}` }, fault.headers);
      return;
    }
    const timestamp = query.get("timestamp");
    if (timestamp !== null && exchange.checkTimestamps) {
      const window = Number(query.get("recvWindow") ?? 5000);
      if (Number(timestamp) >= now() + 1000 || now() - Number(timestamp) > window) {
        json(400, { code: -1021, msg: "Timestamp for this request is outside of the recvWindow." });
        return;
      }
    }
    if (route === "GET /api/v3/time") return json(200, { serverTime: now() });
    if (route === "GET /api/v3/ping") return json(200, {});
    if (route === "GET /api/v3/depth") return json(200, { lastUpdateId: 1, bids: [], asks: [] });
    if (route === "POST /api/v3/order") {
      const clientOrderId = query.get("newClientOrderId") ?? `server-${nextOrderId}`;
      if (exchange.orders.some((o) => o.clientOrderId === clientOrderId)) {
        json(400, { code: -2010, msg: "Duplicate order sent." });
        return;
      }
      const order: PlacedOrder = {
        orderId: nextOrderId++,
        clientOrderId,
        symbol: query.get("symbol") ?? "",
        side: query.get("side") ?? "",
        type: query.get("type") ?? "",
        status: "NEW",
      };
      exchange.orders.push(order);
      if (fault.kind === "drop") {
        request.socket.destroy();
        return;
      }
      if (fault.kind === "unavailable-after-accept") {
        json(503, { code: -1000, msg: "Service unavailable." }, { Connection: "close" });
        return;
      }
      json(200, { ...order, orderListId: -1, transactTime: now() });
      return;
    }
    if (route === "GET /api/v3/order") {
      const order = exchange.orders.find((o) => o.clientOrderId === query.get("origClientOrderId"));
      if (!order) return json(400, { code: -2013, msg: "Order does not exist." });
      return json(200, { ...order, price: "0", origQty: "1", executedQty: "0", time: now() });
    }
    json(404, { code: -1000, msg: `no ${route}` });
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handle(request, Buffer.concat(chunks).toString("utf8"), response));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  exchange.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  exchange.close = () =>
    new Promise<void>((resolve, reject) => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  return exchange;
}
