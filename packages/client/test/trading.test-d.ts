// Type-level tests of what a trading program writes: decimal text, a `switch` over an operation's
// error codes (checked for exhaustiveness), and the paging iterators. Checked by tsc through `vitest run`.
import { describe, expectTypeOf, it } from "vitest";
import {
  createSpotClient,
  type Item,
  type OperationCode,
  type SchemaAggTrade,
  type SchemaOrder,
  type SchemaTrade,
  type UnlistedCode,
} from "../src/index.js";

const client = createSpotClient({ baseUrl: "http://127.0.0.1:8080", apiKey: "k", apiSecret: "s" });

describe("decimal parameters", () => {
  it("take decimal text, sent exactly as written, or a number", () => {
    void client.new_order({
      symbol: "BTCUSDT",
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "0.00100000",
      price: "29985.00",
    });
    void client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", quoteOrderQty: 100.5 });
    const bestAsk = "29985.01" as string; // an answer's price is a string
    void client.new_order({ symbol: "BTCUSDT", side: "SELL", type: "LIMIT", price: bestAsk, quantity: "1" });
    // @ts-expect-error a price is a number or decimal text, not a boolean
    void client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "LIMIT", price: false });
    // @ts-expect-error limit is an integer parameter: no text
    void client.order_book({ symbol: "BTCUSDT", limit: "5" });
  });
});

describe("error codes", () => {
  it("are the codes the spec states for the operation, and an unlisted case", async () => {
    const result = await client.new_order({ symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: 1 });
    if (!result.error) return;
    expectTypeOf(result.error.code).toEqualTypeOf<OperationCode<"new_order"> | UnlistedCode>();
    expectTypeOf<-2010>().toMatchTypeOf<OperationCode<"new_order">>();
    expectTypeOf<-1021>().toMatchTypeOf<OperationCode<"new_order">>();
    expectTypeOf<-2013>().not.toMatchTypeOf<OperationCode<"new_order">>(); // query_order's unknown order
    // An unlisted code is compared as a number.
    if (Number(result.error.code) === -1001) return;
  });

  it("are checked for exhaustiveness in a switch", () => {
    function explain(code: OperationCode<"cancel_order"> | UnlistedCode): string {
      switch (code) {
        case -1003:
          return "rate limit";
        case -1021:
        case -1022:
          return "signature or clock";
        case -1100:
        case -1101:
        case -1102:
        case -1121:
          return "bad request";
        case -1194:
          return "time unit";
        case -2011:
          return "not open";
        case -2014:
        case -2015:
          return "key";
        case -2039:
          return "ids disagree";
        default:
          // Every stated code is handled: only the unlisted case is left.
          return `unlisted ${code satisfies UnlistedCode}`;
      }
    }
    function forgetful(code: OperationCode<"cancel_order"> | UnlistedCode): string {
      switch (code) {
        case -2011:
          return "not open";
        default:
          // @ts-expect-error the other stated codes are not handled
          return `unlisted ${code satisfies UnlistedCode}`;
      }
    }
    void explain;
    void forgetful;
  });

  it("give an operation whose only parameter is the time-unit header that header's codes and the rate limit's", () => {
    expectTypeOf<OperationCode<"ping">>().toEqualTypeOf<-1003 | -1100 | -1194>();
  });
});

describe("paging iterators", () => {
  it("iterate over the items of the paged operations", async () => {
    for await (const trade of client.historical_trades.iterate({ symbol: "BTCUSDT", fromId: 0 }))
      expectTypeOf(trade).toEqualTypeOf<SchemaTrade>();
    for await (const trade of client.aggTrades.iterate({ symbol: "BTCUSDT", startTime: new Date(0) }))
      expectTypeOf(trade).toEqualTypeOf<SchemaAggTrade>();
    for await (const order of client.all_orders.iterate({ symbol: "BTCUSDT", startTime: 0, endTime: 1 }))
      expectTypeOf(order).toEqualTypeOf<SchemaOrder>();
    expectTypeOf<Item<"all_orders">>().toEqualTypeOf<SchemaOrder>();
  });

  it("exist only where the spec states paging", () => {
    // @ts-expect-error the order book does not page
    void client.order_book.iterate;
    // @ts-expect-error the parameters are still checked
    void client.historical_trades.iterate({ fromId: 0 });
  });
});
