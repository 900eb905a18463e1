// Fuzzing over HTTP: thousands of random and malformed requests (wrong types, huge values, bad
// percent-encodings, duplicated parameters, garbage bodies, missing or garbled signatures, random
// paths and methods, raw garbage on the socket). Every answer must be a 2xx or a 4xx whose body is
// the API's error object; never a 5xx, never a crash; the server keeps serving.
import { connect } from "node:net";
import { loadOpenApi, loadSandboxOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { validateResponse } from "@marketapi/validators";
import { validateResponse as validateSandboxResponse } from "@marketapi/validators/sandbox";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAdminOperation } from "../src/http/api.js";
import { type Logger, ORDER_TYPES, type RunningServer, startServer } from "../src/index.js";
import { hmac, isErrorBody, type RawRequest, type RawResponse, send } from "./support/http.js";

const unexpected: unknown[] = [];
const recordingLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: (message, error) => unexpected.push({ message, error }),
};

let server: RunningServer;
let sent = 0;

beforeAll(async () => {
  server = await startServer({
    seed: 9,
    logger: recordingLogger,
    config: { rateLimits: { requestWeightPerMinute: 1_000_000_000, ordersPer10s: 1_000_000 } },
  });
});
afterAll(() => server.close());

/**
 * method, path, operationId, mandatory and optional parameters of every operation, and the signed
 * ones: read from the spec's model and the sandbox document's (the server's operations beyond the
 * API's; its admin operations are served on a port of their own, test/sandbox/admin.test.ts), so a
 * new operation is fuzzed without an edit here.
 */
const MODEL = buildSpecModel(loadOpenApi());
const SANDBOX = {
  operations: buildSpecModel(loadSandboxOpenApi()).operations.filter((op) => !isAdminOperation(op)),
};
const SANDBOX_IDS = new Set(SANDBOX.operations.map((op) => op.operationId));
const OPERATIONS: [string, string, string, string[], string[]][] = [
  ...MODEL.operations,
  ...SANDBOX.operations,
].map((op) => [
  op.method.toUpperCase(),
  op.path,
  op.operationId,
  op.parameters.filter((p) => p.required).map((p) => p.name),
  op.parameters.filter((p) => !p.required).map((p) => p.name),
]);
const SIGNED = new Set(
  [...MODEL.operations, ...SANDBOX.operations].filter((op) => op.signed).map((op) => op.operationId),
);
const ALL_NAMES = [...new Set(OPERATIONS.flatMap((o) => [...o[3], ...o[4]]))];

const symbolName = fc.constantFrom("BTCUSDT", "ETHUSDT", "ETHBTC");

/** Text that may appear raw in a request target: unreserved, sub-delims and stray `%`. */
const rawChar = fc.constantFrom(..."ABCXYZabcxyz0189-._~!$'()*+,;=:@/?%[]\"{}|^`");

/** Values that break things: wrong types, huge numbers, bad escapes, odd JSON, random text. */
const garbage: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "btcusdt",
    "NOPE",
    "true",
    "null",
    "[]",
    "{}",
    "0",
    "-1",
    "1e-3",
    "NaN",
    "Infinity",
    "0x10",
  ),
  fc.constantFrom("%zz", "%", "%E0%A4%A", "%00", "%C0%AF", "%5B%22BTCUSDT%22%5D", '["BTCUSDT","BTCUSDT"]'),
  fc.constantFrom(
    "9".repeat(25),
    "1".repeat(400),
    "99999999999999999999.99999999999999999999",
    "1.000000001",
  ),
  fc.constantFrom("2024-13-01T00:00:00Z", "2016-12-31T23:59:60Z", "2024-01-01t00:00:00z", "x-TKT5PX2F.1:/a"),
  fc.integer({ min: -(2 ** 53), max: 2 ** 53 }).map(String),
  fc.double().map(String),
  fc.string({ unit: rawChar, maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }).map(encodeURIComponent),
);

const decimal = fc.oneof(
  fc.constantFrom("0.001", "0.01", "0.1", "1", "0.00001", "5", "0.05", "0.049", "0.051", "100"),
  fc.constantFrom("60000", "59990.5", "60010.25", "3000", "2990.1", "3010.99", "1000000", "0.00000001"),
);

/** Plausible values per parameter, so that many requests get past validation into the engine. */
const PLAUSIBLE: Record<string, fc.Arbitrary<string>> = {
  symbol: symbolName,
  symbols: fc.constantFrom('["BTCUSDT"]', "%5B%22ETHUSDT%22%2C%22ETHBTC%22%5D", "[%22BTCUSDT%22]"),
  limit: fc.integer({ min: 1, max: 6000 }).map(String),
  fromId: fc.integer({ min: 0, max: 100 }).map(String),
  startTime: fc.constantFrom("2026-11-22T00:00:00Z", "1700000000000", "0"),
  endTime: fc.constantFrom("2026-11-23T00:00:00Z", "1900000000000", "1"),
  side: fc.constantFrom("BUY", "SELL"),
  type: fc.constantFrom(...ORDER_TYPES),
  timeInForce: fc.constantFrom("GTC", "IOC", "FOK"),
  quantity: decimal,
  quoteOrderQty: decimal,
  price: decimal,
  stopPrice: decimal,
  icebergQty: decimal,
  trailingDelta: fc.constantFrom("10", "100", "2000", "5", "50.5"),
  newOrderRespType: fc.constantFrom("ACK", "RESULT", "FULL"),
  newClientOrderId: fc.constantFrom("fuzz-1", "fuzz-2", "a.b:c/d", "x".repeat(37)),
  origClientOrderId: fc.constantFrom("fuzz-1", "fuzz-2", "unknown"),
  orderId: fc.integer({ min: 1, max: 400 }).map(String),
  recvWindow: fc.constantFrom("5000", "60000", "60001", "0"),
};

/** `arbitrary` once in `oneIn` draws, undefined otherwise. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** name=value, usually plausible for the name, sometimes garbage. */
function pairFor(name: string): fc.Arbitrary<string> {
  const valueFor = fc.oneof(
    { weight: 6, arbitrary: PLAUSIBLE[name] ?? garbage },
    { weight: 1, arbitrary: garbage },
  );
  return valueFor.map((value) => `${name}=${value}`);
}

const oddPair = fc.oneof(
  fc.tuple(fc.string({ unit: rawChar, maxLength: 12 }), garbage).map(([n, v]) => `${n}=${v}`),
  fc.constantFrom(...ALL_NAMES).chain(pairFor),
  fc.constantFrom("", "=", "novalue", "a==b", "&&", "signature=1", "timestamp=x", "symbol=BTCUSDT"),
);

/** The mandatory parameters (rarely one missing), a random subset of the optional ones, rarely an odd extra. */
function paramsFor(required: readonly string[], optional: readonly string[]): fc.Arbitrary<string> {
  const mandatory = fc.tuple(...required.map((name) => fc.option(pairFor(name), { freq: 20, nil: "" })));
  const chosen = fc.subarray([...optional]).chain((names) => fc.tuple(...names.map(pairFor)));
  const extras = fc
    .array(oddPair, { maxLength: 2 })
    .chain((list) => fc.oneof({ weight: 4, arbitrary: fc.constant([] as string[]) }, fc.constant(list)));
  return fc
    .tuple(mandatory, chosen, extras)
    .map(([m, o, e]) => [...m, ...o, ...e].filter((pair) => pair !== "").join("&"));
}

type Signing = "valid" | "none" | "garbled" | "stale" | "wrongKey";

interface Case {
  operationId: string | undefined;
  method: string;
  path: string;
  query: string;
  body: string | undefined;
  contentType: string | undefined;
  apiKey: "demo" | "absent" | "empty" | "unknown" | "malformed";
  signing: Signing;
}

const knownTarget = fc.constantFrom(...OPERATIONS).chain(([method, path, operationId, required, optional]) =>
  fc.record({
    operationId: fc.constant<string | undefined>(operationId),
    method: fc.constant(method),
    path: fc.constant(path),
    params: paramsFor(required, optional),
  }),
);
const randomTarget = fc.record({
  operationId: fc.constant<string | undefined>(undefined),
  method: fc.constantFrom("GET", "POST", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"),
  path: fc.oneof(
    fc.constantFrom(...OPERATIONS.map((o) => o[1])),
    fc.string({ unit: rawChar, maxLength: 30 }).map((p) => `/${p.replace(/[?]/g, "")}`),
    fc.constantFrom("/", "/api/v3/", "/api/v3/order/", "/api/v3/../v3/ping", "//api/v3/ping", "/API/V3/PING"),
  ),
  params: paramsFor([], ALL_NAMES),
});

const caseArbitrary: fc.Arbitrary<Case> = fc
  .record({
    target: fc.oneof({ weight: 6, arbitrary: knownTarget }, { weight: 1, arbitrary: randomTarget }),
    placement: fc.constantFrom("query", "query", "body", "split"),
    bodyGarbage: rarely(
      fc.constantFrom('{"symbol":"BTCUSDT"}', "\u0000\u0001", "a=%FF%FE", "x".repeat(70_000), "=&=&"),
      8,
    ),
    contentType: rarely(
      fc.constantFrom(
        "application/x-www-form-urlencoded",
        "application/x-www-form-urlencoded; charset=utf-8",
        "application/json",
        "text/plain",
        "multipart/form-data; boundary=x",
      ),
      6,
    ),
    apiKey: fc.oneof(
      { weight: 12, arbitrary: fc.constant<Case["apiKey"]>("demo") },
      fc.constantFrom<Case["apiKey"]>("absent", "empty", "unknown", "malformed"),
    ),
    signing: fc.oneof(
      { weight: 12, arbitrary: fc.constant<Signing>("valid") },
      fc.constantFrom<Signing>("none", "garbled", "stale", "wrongKey"),
    ),
  })
  .map(({ target, placement, bodyGarbage, contentType, apiKey, signing }) => {
    const pairs = target.params === "" ? [] : target.params.split("&");
    const cut =
      placement === "query" ? pairs.length : placement === "body" ? 0 : Math.floor(pairs.length / 2);
    const formBody = placement === "query" ? undefined : pairs.slice(cut).join("&");
    return {
      operationId: target.operationId,
      method: target.method,
      path: target.path,
      query: pairs.slice(0, cut).join("&"),
      body: bodyGarbage ?? formBody,
      contentType:
        formBody !== undefined && contentType === undefined
          ? "application/x-www-form-urlencoded"
          : contentType,
      apiKey,
      signing,
    };
  });

/** New orders with the parameters their type needs (sometimes one too many or too few), and cancels. */
const orderParams = fc
  .record({
    symbol: symbolName,
    side: fc.constantFrom("BUY", "SELL"),
    type: fc.constantFrom(...ORDER_TYPES),
    timeInForce: fc.constantFrom("GTC", "IOC", "FOK"),
    offset: fc.double({ min: -0.02, max: 0.02, noNaN: true }),
    notional: fc.constantFrom(1, 6, 20, 150, 5000, 2_000_000),
    stopOffset: fc.double({ min: -0.02, max: 0.02, noNaN: true }),
    byQuote: fc.boolean(),
    iceberg: rarely(fc.constantFrom(0.2, 0.5), 6),
    trailingDelta: rarely(fc.constantFrom(10, 100, 2000, 5), 5),
    respType: rarely(fc.constantFrom("ACK", "RESULT", "FULL"), 2),
    extra: rarely(fc.constantFrom("price=1", "timeInForce=GTC", "quoteOrderQty=10", "icebergQty=1"), 12),
  })
  .map((o) => {
    const reference = { BTCUSDT: 60000, ETHUSDT: 3000, ETHBTC: 0.05 }[o.symbol] as number;
    const decimals = o.symbol === "ETHBTC" ? 5 : 2;
    const price = (reference * (1 + o.offset)).toFixed(decimals);
    const qtyDecimals = { BTCUSDT: 5, ETHUSDT: 4, ETHBTC: 3 }[o.symbol] as number;
    const quantity = Math.max(
      10 ** -qtyDecimals,
      o.notional / reference / (o.symbol === "ETHBTC" ? 60000 : 1),
    ).toFixed(qtyDecimals);
    const pairs = [`symbol=${o.symbol}`, `side=${o.side}`, `type=${o.type}`];
    const limitLike = ["LIMIT", "STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT", "LIMIT_MAKER"].includes(o.type);
    if (limitLike) pairs.push(`price=${price}`);
    if (limitLike && o.type !== "LIMIT_MAKER") pairs.push(`timeInForce=${o.iceberg ? "GTC" : o.timeInForce}`);
    if (o.type === "MARKET" && o.byQuote)
      pairs.push(`quoteOrderQty=${(o.notional / (o.symbol === "ETHBTC" ? 60000 : 1)).toFixed(6)}`);
    else pairs.push(`quantity=${quantity}`);
    if (o.type.startsWith("STOP") || o.type.startsWith("TAKE")) {
      if (o.trailingDelta !== undefined) pairs.push(`trailingDelta=${o.trailingDelta}`);
      else pairs.push(`stopPrice=${(reference * (1 + o.stopOffset)).toFixed(decimals)}`);
    }
    if (o.iceberg !== undefined && limitLike)
      pairs.push(`icebergQty=${(Number(quantity) * o.iceberg).toFixed(qtyDecimals)}`);
    if (o.respType !== undefined) pairs.push(`newOrderRespType=${o.respType}`);
    if (o.extra !== undefined) pairs.push(o.extra);
    return pairs.join("&");
  });

const orderCase: fc.Arbitrary<Case> = fc
  .oneof(
    {
      weight: 5,
      arbitrary: orderParams.map((params) => ({
        operationId: "new_order",
        method: "POST",
        path: "/api/v3/order",
        params,
      })),
    },
    fc.tuple(symbolName, fc.integer({ min: 300, max: 900 })).map(([symbol, id]) => ({
      operationId: "cancel_order",
      method: "DELETE",
      path: "/api/v3/order",
      params: `symbol=${symbol}&orderId=${id}`,
    })),
    fc.tuple(symbolName, fc.integer({ min: 300, max: 900 })).map(([symbol, id]) => ({
      operationId: "query_order",
      method: "GET",
      path: "/api/v3/order",
      params: `symbol=${symbol}&orderId=${id}`,
    })),
    symbolName.map((symbol) => ({
      operationId: "all_orders",
      method: "GET",
      path: "/api/v3/allOrders",
      params: `symbol=${symbol}&limit=20`,
    })),
    symbolName.map((symbol) => ({
      operationId: "cancel_all_orders",
      method: "DELETE",
      path: "/api/v3/openOrders",
      params: `symbol=${symbol}`,
    })),
  )
  .chain((target) =>
    fc.constantFrom("query", target.method === "GET" ? "query" : "body").map(
      (placement): Case => ({
        operationId: target.operationId,
        method: target.method,
        path: target.path,
        query: placement === "query" ? target.params : "",
        body: placement === "body" ? target.params : undefined,
        contentType: placement === "body" ? "application/x-www-form-urlencoded" : undefined,
        apiKey: "demo",
        signing: "valid",
      }),
    ),
  );

/** Adds timestamp and signature the way the case asks; a valid case reaches validation and the engine. */
function toRequest(c: Case): RawRequest {
  const secret = c.signing === "wrongKey" ? "not-the-secret" : server.demo.apiSecret;
  const timestamp = c.signing === "stale" ? Date.now() - 120_000 : Date.now();
  const inBody = c.body !== undefined && c.method !== "GET";
  const join = (a: string, b: string) => (a === "" ? b : `${a}&${b}`);
  let query = c.query;
  let body = c.body;
  // Unsigned operations get a signing envelope only when the case garbles it on purpose.
  const signs =
    c.operationId === undefined || SIGNED.has(c.operationId) ? c.signing !== "none" : c.signing === "garbled";
  if (signs) {
    if (inBody) body = join(body ?? "", `timestamp=${timestamp}`);
    else query = join(query, `timestamp=${timestamp}`);
    const payload = query + (inBody ? (body ?? "") : "");
    const signature =
      c.signing === "garbled" ? `${hmac(secret, payload).slice(0, 60)}zz%` : hmac(secret, payload);
    if (inBody) body = `${body}&signature=${signature}`;
    else query = `${query}&signature=${signature}`;
  }
  const headers: Record<string, string> = {};
  if (c.contentType !== undefined) headers["Content-Type"] = c.contentType;
  const apiKey = {
    demo: server.demo.apiKey,
    absent: undefined,
    empty: "",
    unknown: "nobody",
    malformed: "bad key!",
  }[c.apiKey];
  if (apiKey !== undefined) headers["X-MBX-APIKEY"] = apiKey;
  return { method: c.method, path: c.path, query: query === "" ? undefined : query, body, headers };
}

/** Sends a batch of cases at once (over the keep-alive agent) and checks every answer. */
async function sendAndCheck(cases: Case[]): Promise<void> {
  const requests = cases.map(toRequest);
  const answers = await Promise.all(requests.map((request) => send(server.url, request)));
  for (const [i, res] of answers.entries()) checkAnswer(cases[i] as Case, requests[i] as RawRequest, res);
}

const statuses = new Map<number, number>();
/** Business error codes seen from the engine (filters, balances, unknown orders...). */
const engineCodes = new Set<number>();

function checkAnswer(c: Case, request: RawRequest, res: RawResponse): void {
  sent += 1;
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const context = JSON.stringify({
    request: { ...request, body: request.body?.slice(0, 200) },
    status: res.status,
    text: res.text.slice(0, 300),
  });
  expect(res.status, context).toBeLessThan(500);
  if (request.method === "HEAD") return;
  if (res.status >= 300) expect(isErrorBody(res.json), context).toBe(true);
  const code = (res.json as { code?: number } | undefined)?.code;
  if (code !== undefined && (code <= -2000 || code === -1013)) engineCodes.add(code);
  expect(res.headers["x-mbx-used-weight-1m"], context).toMatch(/^[0-9]+$/);
  if (c.operationId === undefined) return;
  // Every answer of a known operation is one its document documents, with the body it documents.
  const respType = /newOrderRespType=(ACK|RESULT|FULL)(&|$)/.exec(
    `${request.query ?? ""}&${request.body ?? ""}`,
  )?.[1];
  const options = c.operationId === "new_order" && res.status === 200 ? { variant: respType ?? "FULL" } : {};
  const validate = SANDBOX_IDS.has(c.operationId) ? validateSandboxResponse : validateResponse;
  const result = validate(c.operationId, res.status, res.json, options);
  expect(result, context).toEqual({ valid: true });
}

describe("fuzzing over HTTP", () => {
  it("answers 5,000 random and malformed requests with 2xx or a 4xx error object", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(caseArbitrary, { minLength: 10, maxLength: 10 }), sendAndCheck),
      { numRuns: 500, seed: 20261122 },
    );
    expect(sent).toBeGreaterThanOrEqual(5000);
    // The mix reaches the handlers and the engine, not only the early rejections.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(500);
    expect(unexpected).toEqual([]);
  });

  it("trades through 2,000 well-formed signed orders and cancels without a 5xx, every answer as the spec says", async () => {
    const before = statuses.get(200) ?? 0;
    await fc.assert(fc.asyncProperty(fc.array(orderCase, { minLength: 10, maxLength: 10 }), sendAndCheck), {
      numRuns: 200,
      seed: 1122,
    });
    expect((statuses.get(200) ?? 0) - before).toBeGreaterThan(400);
    expect(engineCodes.size).toBeGreaterThan(5);
    expect(unexpected).toEqual([]);
  });

  it("answers garbage on the socket with a JSON error or a closed connection", async () => {
    const garbage = fc.oneof(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.constantFrom(
        "GET /api/v3/ping HTTP/9.9\r\n\r\n",
        "GET /api/v3/ping\r\n\r\n",
        "POST /api/v3/order HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "POST /api/v3/order HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nX-MBX-APIKEY: a\u0000b\r\n\r\n",
        `GET /api/v3/depth?symbol=BTCUSDT HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      ),
    );
    await fc.assert(
      fc.asyncProperty(garbage, async (bytes) => {
        const reply = await rawExchange(server.port, Buffer.from(bytes, "latin1"));
        if (reply === "") return;
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
        expect(status, reply.slice(0, 200)).toBeLessThan(500);
        const body = reply.slice(reply.indexOf("\r\n\r\n") + 4);
        if (status >= 400) expect(isErrorBody(JSON.parse(body)), reply.slice(0, 300)).toBe(true);
      }),
      { numRuns: 200, seed: 7 },
    );
  });

  it("still serves afterwards, with no book crossed", async () => {
    expect((await send(server.url, { path: "/api/v3/ping" })).status).toBe(200);
    for (const symbol of ["BTCUSDT", "ETHUSDT", "ETHBTC"]) {
      const depth = await send(server.url, { path: "/api/v3/depth", query: `symbol=${symbol}&limit=5` });
      const { bids, asks } = depth.json as { bids: [string, string][]; asks: [string, string][] };
      if (bids.length > 0 && asks.length > 0) expect(Number(bids[0]?.[0])).toBeLessThan(Number(asks[0]?.[0]));
    }
    expect(unexpected).toEqual([]);
  });
});

/**
 * Writes bytes on a fresh socket and collects the answer until the server closes or the answer is
 * complete. The server always does one or the other; the timer only keeps a defect from hanging the run.
 */
function rawExchange(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const done = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString("latin1"));
    };
    // Ends at a whole answer or when the server closes; one that does neither is a hang.
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString("latin1");
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      const bodyStart = text.indexOf("\r\n\r\n");
      if (length !== undefined && bodyStart >= 0 && text.length - bodyStart - 4 >= Number(length)) done();
    });
    socket.on("close", done);
    socket.on("error", () => undefined);
    socket.end(bytes);
  });
}
