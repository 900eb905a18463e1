// Every operation of the spec against a real loopback server: method, path, query or form body,
// credentials header and a signature the server verifies, for both ways of calling (the
// per-operation method and the openapi-fetch path-based call) and both parameter placements.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSpotClient, type OperationId, operationTable } from "../src/index.js";
import { spec, specOperations, successExample } from "./support/spec.js";
import { type ReceivedRequest, type SpotServer, startSpotServer } from "./support/spot-server.js";

const API_KEY = "test-api-key";
const SECRET = "test-secret";
const NOW = 1499827319559;

interface Case {
  params?: Record<string, unknown>;
  /** The operation's own parameters as the server decodes them, in order. */
  wire: [string, string][];
}

/**
 * The operations whose call needs more than the spec's examples show: JSON and date encodings,
 * decimals in exponent form, the two ways to name an order. Every other operation's case is derived
 * from the spec (derivedCase), so a new operation needs no entry here.
 */
const handCases: Partial<Record<OperationId, Case>> = {
  exchange_info: {
    params: { symbols: ["BTCUSDT", "ETHUSDT"] },
    wire: [["symbols", '["BTCUSDT","ETHUSDT"]']],
  },
  order_book: {
    params: { symbol: "BTCUSDT", limit: 5 },
    wire: [
      ["symbol", "BTCUSDT"],
      ["limit", "5"],
    ],
  },
  recent_trades_list: {
    params: { symbol: "BTCUSDT", limit: 10 },
    wire: [
      ["symbol", "BTCUSDT"],
      ["limit", "10"],
    ],
  },
  historical_trades: {
    params: { symbol: "BTCUSDT", limit: 10, fromId: 28457 },
    wire: [
      ["symbol", "BTCUSDT"],
      ["limit", "10"],
      ["fromId", "28457"],
    ],
  },
  aggTrades: {
    params: { symbol: "BTCUSDT", startTime: new Date(Date.UTC(2024, 0, 1)), endTime: "2024-01-01T01:00:00Z" },
    wire: [
      ["symbol", "BTCUSDT"],
      ["startTime", "2024-01-01T00:00:00.000Z"],
      ["endTime", "2024-01-01T01:00:00Z"],
    ],
  },
  current_average_price: { params: { symbol: "BNBBTC" }, wire: [["symbol", "BNBBTC"]] },
  order_book_ticker: { params: { symbol: "LTCBTC" }, wire: [["symbol", "LTCBTC"]] },
  symbol_price_ticker: { params: {}, wire: [] },
  ticker_price_change_statistics24hr: { params: { symbol: "BNBBTC" }, wire: [["symbol", "BNBBTC"]] },
  new_order: {
    params: {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: 1e-7,
      price: 42000.5,
    },
    wire: [
      ["symbol", "BTCUSDT"],
      ["side", "BUY"],
      ["type", "LIMIT"],
      ["timeInForce", "GTC"],
      ["quantity", "0.0000001"],
      ["price", "42000.5"],
    ],
  },
  cancel_order: {
    params: { symbol: "LTCBTC", orderId: 4 },
    wire: [
      ["symbol", "LTCBTC"],
      ["orderId", "4"],
    ],
  },
  query_order: {
    params: { symbol: "LTCBTC", origClientOrderId: "myOrder1" },
    wire: [
      ["symbol", "LTCBTC"],
      ["origClientOrderId", "myOrder1"],
    ],
  },
  open_orders: { params: {}, wire: [] },
  cancel_all_orders: { params: { symbol: "BTCUSDT" }, wire: [["symbol", "BTCUSDT"]] },
  all_orders: {
    params: { symbol: "LTCBTC", startTime: 1499827319559, endTime: 1499827320000, limit: 500 },
    wire: [
      ["symbol", "LTCBTC"],
      ["startTime", "1499827319559"],
      ["endTime", "1499827320000"],
      ["limit", "500"],
    ],
  },
};

/** The case of an operation without a hand-written one: its required parameters at their examples. */
function derivedCase(operationId: string): Case {
  const found = specOperations.find((o) => o.operationId === operationId);
  if (!found) throw new Error(`${operationId} is not an operation of the spec`);
  const required = (
    (found.operation.parameters ?? []) as { name: string; required?: boolean; example?: unknown }[]
  )
    .map((p) => resolveParameter(p))
    .filter((p) => p.required === true);
  const missing = required.filter((p) => p.example === undefined).map((p) => p.name);
  if (missing.length > 0)
    throw new Error(
      `${operationId}: no example for ${missing.join(", ")}; give it one in the spec or a case in handCases`,
    );
  return {
    params: Object.fromEntries(required.map((p) => [p.name, p.example])),
    wire: required.map((p) => [p.name, String(p.example)]),
  };
}

/** A parameter with its `$ref` followed. */
function resolveParameter(parameter: { $ref?: string; name: string }): {
  name: string;
  required?: boolean;
  example?: unknown;
} {
  if (!parameter.$ref) return parameter;
  const name = parameter.$ref.replace("#/components/parameters/", "");
  return spec.components.parameters[name];
}

const cases = Object.fromEntries(
  specOperations.map((o) => [
    o.operationId,
    handCases[o.operationId as OperationId] ?? derivedCase(o.operationId),
  ]),
) as Record<OperationId, Case>;

type LooseClient = Record<string, (params?: unknown) => Promise<{ data?: unknown; error?: unknown }>> & {
  request(method: string, path: string, init?: unknown): Promise<{ data?: unknown; error?: unknown }>;
};

function declaresRecvWindow(op: { operation: { parameters?: { name?: string; $ref?: string }[] } }): boolean {
  return (op.operation.parameters ?? []).some((p) => p.name === "recvWindow");
}

let server: SpotServer;
beforeAll(async () => {
  server = await startSpotServer(SECRET);
});
afterAll(() => server.close());

function client(paramsIn: "query" | "body" = "query"): LooseClient {
  const options = {
    baseUrl: server.baseUrl,
    apiKey: API_KEY,
    apiSecret: SECRET,
    recvWindow: 5000,
    now: () => NOW,
    // Each case's exact bytes: without lookups the client adds no newClientOrderId of its own
    // (test/retries.test.ts covers the one it adds).
    retry: { lookups: false },
  };
  return createSpotClient({ ...options, paramsIn }) as unknown as LooseClient;
}

async function lastRequest(
  send: () => Promise<{ data?: unknown; error?: unknown }>,
): Promise<ReceivedRequest> {
  const before = server.received.length;
  const result = await send();
  expect(result.error).toBeUndefined();
  expect(server.received.length).toBe(before + 1);
  return server.received.at(-1)!;
}

it("covers every operation of the spec, and the table agrees with the spec", () => {
  expect(Object.keys(cases).sort()).toEqual(specOperations.map((o) => o.operationId).sort());
  for (const op of specOperations) {
    const entry = operationTable[op.operationId as OperationId];
    expect({ method: entry.method, path: entry.path, authClass: entry.authClass }).toEqual({
      method: op.method,
      path: op.path,
      authClass: op.authClass,
    });
  }
});

describe.each(["method", "path"] as const)("called by %s", (via) => {
  it.each(specOperations.map((op) => [op.operationId, op] as const))("%s", async (id, op) => {
    const { params, wire } = cases[id as OperationId];
    const c = client();
    const received = await lastRequest(() =>
      via === "method" ? c[id]!(params) : c.request(op.method, op.path, { params: { query: params } }),
    );
    expect({ method: received.method, path: received.path }).toEqual({ method: op.method, path: op.path });
    expect(received.rawBody).toBe("");
    expect(received.headers["x-mbx-apikey"]).toBe(op.authClass === "none" ? undefined : API_KEY);

    if (op.authClass === "trade" || op.authClass === "user_data") {
      // recvWindow only where the spec declares it (new_order), as the source document says.
      expect(received.query.slice(0, -1)).toEqual([
        ...wire,
        ...(declaresRecvWindow(op) ? [["recvWindow", "5000"]] : []),
        ["timestamp", String(NOW)],
      ]);
      expect(received.query.at(-1)?.[0]).toBe("signature");
      expect(received.signature).toEqual({ in: "query", last: true, valid: true });
    } else {
      expect(received.query).toEqual(wire);
      expect(received.signature).toBeUndefined();
    }
  });
});

describe("header parameters (in: header)", () => {
  // The spec declares X-MBX-TIME-UNIT on every operation: the method sends it as a request header,
  // never in the query or the body, and the signature still covers exactly what is sent.
  it.each(specOperations.map((op) => [op.operationId, op] as const))(
    "%s sends X-MBX-TIME-UNIT as a header",
    async (id, op) => {
      const { params, wire } = cases[id as OperationId];
      const received = await lastRequest(() =>
        client()[id]!({ ...params, "X-MBX-TIME-UNIT": "MICROSECOND" }),
      );
      expect(received.headers["x-mbx-time-unit"]).toBe("MICROSECOND");
      expect(received.query.map(([name]) => name)).not.toContain("X-MBX-TIME-UNIT");
      expect(received.query.slice(0, wire.length)).toEqual(wire);
      if (op.authClass === "trade" || op.authClass === "user_data")
        expect(received.signature).toEqual({ in: "query", last: true, valid: true });
    },
  );
});

describe("date_time parameters", () => {
  it.each([
    ["a Date", new Date(Date.UTC(2024, 0, 1)), "2024-01-01T00:00:00.000Z"],
    ["an RFC 3339 string", "2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00+01:00"],
    ["epoch milliseconds", 1704067200000, "1704067200000"],
  ])("aggTrades sends %s as it is", async (_label, startTime, want) => {
    const received = await lastRequest(() => client().aggTrades!({ symbol: "BTCUSDT", startTime }));
    expect(received.query).toEqual([
      ["symbol", "BTCUSDT"],
      ["startTime", want],
    ]);
  });
});

describe("market_data without an API key", () => {
  it.each(["recent_trades_list", "historical_trades"])("%s is sent without X-MBX-APIKEY", async (id) => {
    const anonymous = createSpotClient({ baseUrl: server.baseUrl }) as unknown as LooseClient;
    const received = await lastRequest(() => anonymous[id]!({ symbol: "BTCUSDT" }));
    expect(received.headers["x-mbx-apikey"]).toBeUndefined();
  });
});

describe("paramsIn: body", () => {
  const formOperations = specOperations.filter(
    (op) => op.operation["x-parameter-placement"] === "query-or-form-body",
  );

  it("applies to the POST and DELETE operations", () => {
    expect(formOperations.map((op) => `${op.method} ${op.operationId}`).sort()).toEqual([
      "DELETE cancel_all_orders",
      "DELETE cancel_order",
      "POST new_order",
    ]);
  });

  it.each(formOperations.map((op) => op.operationId))("%s sends a signed form body", async (id) => {
    const received = await lastRequest(() => client("body")[id]!(cases[id as OperationId].params));
    expect(received.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(received.rawQuery).toBe("");
    expect(received.form.slice(0, -1)).toEqual([
      ...cases[id as OperationId].wire,
      ...(id === "new_order" ? [["recvWindow", "5000"]] : []),
      ["timestamp", String(NOW)],
    ]);
    expect(received.signature).toEqual({ in: "body", last: true, valid: true });
  });

  it("leaves GET operations in the query string", async () => {
    const received = await lastRequest(() => client("body").query_order!(cases.query_order.params));
    expect(received.rawBody).toBe("");
    expect(received.signature).toEqual({ in: "query", last: true, valid: true });
  });
});

it("returns the parsed answer, typed by operation", async () => {
  const c = createSpotClient({ baseUrl: server.baseUrl });
  const { data, error } = await c.order_book({ symbol: "BTCUSDT", limit: 5 });
  expect(error).toBeUndefined();
  expect(data).toEqual(successExample(specOperations.find((o) => o.operationId === "order_book")!.operation));
  expect(data?.bids[0]).toEqual(["4.00000000", "431.00000000"]);
});
