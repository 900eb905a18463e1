// Type-level tests: what must compile and what must not. Checked by tsc through `vitest run`.
import { describe, expectTypeOf, it } from "vitest";
import {
  createSpotClient,
  type OperationCode,
  type operations,
  type SchemaBookTicker,
  type SchemaCancelReport,
  type SchemaErrorPayload,
  type SchemaNewOrderAck,
  type SchemaNewOrderFull,
  type SchemaNewOrderResult,
  type SchemaOrder,
  type SchemaOrderBook,
  type SchemaPriceTicker,
  type SchemaServerTime,
  type SchemaTicker24hr,
  SpotApiError,
  type UnlistedCode,
} from "../src/index.js";

const client = createSpotClient({ baseUrl: "http://127.0.0.1:8080", apiKey: "k", apiSecret: "s" });
const throwing = createSpotClient({ baseUrl: "http://127.0.0.1:8080", throwOnError: true });

describe("parameters", () => {
  it("accept what the spec allows", () => {
    void client.order_book({ symbol: "BTCUSDT", limit: 5 });
    void client.ping();
    void client.open_orders();
    void client.exchange_info({ symbols: ["BTCUSDT", "ETHUSDT"] });
    void client.aggTrades({ symbol: "BTCUSDT", startTime: new Date(), endTime: "2024-01-01T00:00:00Z" });
    void client.aggTrades({ symbol: "BTCUSDT", startTime: 1704067200000, endTime: Date.now() });
    void client.new_order({ symbol: "BTCUSDT", side: "SELL", type: "MARKET", quantity: 0.0000001 });
    void client.GET("/api/v3/depth", { params: { query: { symbol: "BTCUSDT" } } });
  });

  it("reject a missing required parameter", () => {
    // @ts-expect-error symbol is required
    void client.order_book({ limit: 5 });
    // @ts-expect-error the parameters are required
    void client.order_book();
    // @ts-expect-error side is required
    void client.new_order({ symbol: "BTCUSDT", type: "MARKET" });
    // @ts-expect-error symbol is required on the path-based call too
    void client.GET("/api/v3/depth", { params: { query: { limit: 5 } } });
  });

  it("reject a wrong enum value", () => {
    // @ts-expect-error "BUYY" is not an OrderSide
    void client.new_order({ symbol: "BTCUSDT", side: "BUYY", type: "MARKET" });
    // @ts-expect-error "LIMT" is not an OrderType
    void client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "LIMT" });
    // @ts-expect-error "GTX" is not a TimeInForce
    void client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "LIMIT", timeInForce: "GTX" });
  });

  it("reject a wrong type", () => {
    // @ts-expect-error limit is a number
    void client.order_book({ symbol: "BTCUSDT", limit: "5" });
    // @ts-expect-error quantity is a number or decimal text, not a boolean
    void client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: true });
    // @ts-expect-error symbols is an array of strings, not one string
    void client.exchange_info({ symbols: "BTCUSDT" });
    // @ts-expect-error all_orders takes epoch milliseconds, not dates
    void client.all_orders({ symbol: "BTCUSDT", startTime: new Date() });
    // @ts-expect-error ping takes no parameters
    void client.ping({ symbol: "BTCUSDT" });
  });

  it("type symbols as string[] and date_time parameters as an RFC 3339 string, a Date or epoch milliseconds", () => {
    type ExchangeInfoQuery = NonNullable<operations["exchange_info"]["parameters"]["query"]>;
    expectTypeOf<ExchangeInfoQuery["symbols"]>().toEqualTypeOf<string[] | undefined>();
    type AggTradesQuery = operations["aggTrades"]["parameters"]["query"];
    expectTypeOf<AggTradesQuery["startTime"]>().toEqualTypeOf<string | Date | number | undefined>();
  });
});

describe("results", () => {
  it("are typed per operation", async () => {
    expectTypeOf((await client.order_book({ symbol: "BTCUSDT" })).data).toEqualTypeOf<
      SchemaOrderBook | undefined
    >();
    expectTypeOf((await client.server_time()).data).toEqualTypeOf<SchemaServerTime | undefined>();
    expectTypeOf((await client.cancel_order({ symbol: "BTCUSDT", orderId: 1 })).data).toEqualTypeOf<
      SchemaCancelReport | undefined
    >();
    expectTypeOf((await client.all_orders({ symbol: "BTCUSDT" })).data).toEqualTypeOf<
      SchemaOrder[] | undefined
    >();
    expectTypeOf((await client.order_book({ symbol: "BTCUSDT" })).data?.bids[0]).toEqualTypeOf<
      [string, string] | undefined
    >();
    // Path-based calls are typed by openapi-fetch, whose Readable<> widens tuples to arrays.
    const byPath = await client.GET("/api/v3/depth", { params: { query: { symbol: "BTCUSDT" } } });
    expectTypeOf(byPath.data?.lastUpdateId).toEqualTypeOf<number | undefined>();
    expectTypeOf(byPath.data?.bids).toEqualTypeOf<string[][] | undefined>();
  });
});

describe("new_order follows newOrderRespType (x-response-variant-by)", () => {
  const order = { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: 1 } as const;

  /** The answer of a placed order: an order whose answer was lost and that its lookup found has `lookedUp` instead. */
  const placedData = async <R extends { data?: unknown; lookedUp?: unknown }>(placing: Promise<R>) => {
    const placed = await placing;
    if (placed.lookedUp) throw new Error("looked up");
    return placed.data as Exclude<R, { lookedUp: unknown }>["data"];
  };

  it("is FULL without a respType, the declared default", async () => {
    const placed = await client.new_order(order);
    expectTypeOf(placed.data).toEqualTypeOf<SchemaNewOrderFull | undefined>();
    if (placed.data) {
      expectTypeOf(placed.data.status).toEqualTypeOf<SchemaNewOrderFull["status"]>();
      expectTypeOf(placed.data.fills[0]?.tradeId).toEqualTypeOf<number | undefined>();
    }
    expectTypeOf((await placedData(throwing.new_order(order))).status).toBeString();
    expectTypeOf((await placedData(throwing.new_order(order))).fills).toBeArray();
  });

  it("is the order as the lookup found it when the answer was lost (x-outcome-lookup)", async () => {
    const placed = await throwing.new_order(order);
    if (placed.lookedUp) {
      expectTypeOf(placed.lookedUp).toEqualTypeOf<SchemaOrder>();
      expectTypeOf(placed.data).toEqualTypeOf<undefined>();
    } else {
      expectTypeOf(placed.data).toEqualTypeOf<SchemaNewOrderFull>();
    }
    // Operations without a lookup have no such branch.
    expectTypeOf((await throwing.order_book({ symbol: "BTCUSDT" })).lookedUp).toEqualTypeOf<undefined>();
  });

  it("is the named variant with a literal respType", async () => {
    expectTypeOf(
      await placedData(throwing.new_order({ ...order, newOrderRespType: "ACK" })),
    ).toEqualTypeOf<SchemaNewOrderAck>();
    expectTypeOf(
      await placedData(throwing.new_order({ ...order, newOrderRespType: "RESULT" })),
    ).toEqualTypeOf<SchemaNewOrderResult>();
    expectTypeOf(
      await placedData(throwing.new_order({ ...order, newOrderRespType: "FULL" })),
    ).toEqualTypeOf<SchemaNewOrderFull>();
  });

  it("has fills only on FULL, and no order state on ACK", async () => {
    const ack = await placedData(throwing.new_order({ ...order, newOrderRespType: "ACK" }));
    // @ts-expect-error an ACK has no status
    void ack.status;
    const result = await placedData(throwing.new_order({ ...order, newOrderRespType: "RESULT" }));
    expectTypeOf(result.status).toBeString();
    // @ts-expect-error a RESULT has no fills
    void result.fills;
  });

  it("is the union when the respType is only known at run time", async () => {
    const respType = "ACK" as "ACK" | "RESULT" | "FULL";
    expectTypeOf(
      await placedData(throwing.new_order({ ...order, newOrderRespType: respType })),
    ).toEqualTypeOf<SchemaNewOrderAck | SchemaNewOrderResult | SchemaNewOrderFull>();
  });

  it("still rejects wrong parameters", () => {
    // @ts-expect-error "MINI" is not a newOrderRespType
    void client.new_order({ ...order, newOrderRespType: "MINI" });
    // @ts-expect-error an unknown parameter
    void client.new_order({ ...order, respType: "ACK" });
  });
});

describe("tickers: one object with symbol, an array without (x-response-variant-by presence)", () => {
  it("order_book_ticker", async () => {
    expectTypeOf(
      (await throwing.order_book_ticker({ symbol: "BTCUSDT" })).data,
    ).toEqualTypeOf<SchemaBookTicker>();
    expectTypeOf((await throwing.order_book_ticker()).data).toEqualTypeOf<SchemaBookTicker[]>();
    expectTypeOf((await throwing.order_book_ticker({})).data).toEqualTypeOf<SchemaBookTicker[]>();
  });

  it("symbol_price_ticker and ticker_price_change_statistics24hr", async () => {
    expectTypeOf((await throwing.symbol_price_ticker({ symbol: "BTCUSDT" })).data.price).toBeString();
    expectTypeOf((await throwing.symbol_price_ticker()).data).toEqualTypeOf<SchemaPriceTicker[]>();
    const one = await client.ticker_price_change_statistics24hr({ symbol: "BTCUSDT" });
    expectTypeOf(one.data).toEqualTypeOf<SchemaTicker24hr | undefined>();
    expectTypeOf((await client.ticker_price_change_statistics24hr()).data).toEqualTypeOf<
      SchemaTicker24hr[] | undefined
    >();
  });

  it("is the union when the symbol may be absent", async () => {
    const symbol = undefined as string | undefined;
    expectTypeOf((await throwing.symbol_price_ticker({ symbol })).data).toEqualTypeOf<
      SchemaPriceTicker | SchemaPriceTicker[]
    >();
  });

  it("still rejects wrong parameters", () => {
    // @ts-expect-error symbol is a string
    void client.order_book_ticker({ symbol: 42 });
  });

  it("narrow on error, which is the spec's { code, msg } with the operation's codes", async () => {
    const result = await client.order_book({ symbol: "BTCUSDT" });
    if (result.error) {
      expectTypeOf(result.error.msg).toEqualTypeOf<SchemaErrorPayload["msg"]>();
      expectTypeOf(result.error.code).toEqualTypeOf<OperationCode<"order_book"> | UnlistedCode>();
      expectTypeOf(result.data).toEqualTypeOf<undefined>();
    } else {
      expectTypeOf(result.data).toEqualTypeOf<SchemaOrderBook>();
    }
  });

  it("are always data with throwOnError", async () => {
    expectTypeOf((await throwing.order_book({ symbol: "BTCUSDT" })).data).toEqualTypeOf<SchemaOrderBook>();
    expectTypeOf(new SpotApiError("GET", "u", new Response(), {}).code).toEqualTypeOf<number | undefined>();
  });
});
