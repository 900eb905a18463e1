// Each generator's client calls every operation against the reference server on loopback: the
// server must accept the request (2xx) and the answer must validate with @marketapi/validators.
// The generated code and the drivers are type-checked first, with the repository's strict settings.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { validateResponse } from "@marketapi/validators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedDir } from "../src/generate-clients.js";
import { type CallContext, OPERATION_IDS, type OperationId } from "../src/drivers/driver.js";
import { DRIVERS } from "../src/drivers/index.js";

const packageDir = new URL("../", import.meta.url).pathname;

describe("the generated clients", () => {
  it.each(DRIVERS.map((d) => d.generator))("%s: generated (npm run generate) from the bundled spec", (id) => {
    expect(existsSync(generatedDir(id)), `${generatedDir(id)}: run npm run generate`).toBe(true);
  });

  it("type-check with strict, noUncheckedIndexedAccess and verbatimModuleSyntax, drivers included", () => {
    const tsc = new URL("../../../node_modules/.bin/tsc", import.meta.url).pathname;
    const run = () =>
      execFileSync(tsc, ["-p", "tsconfig.json", "--noEmit"], { cwd: packageDir, encoding: "utf8" });
    expect(run).not.toThrow();
  });

  it("each driver declares every operation of the spec", () => {
    for (const driver of DRIVERS) expect(Object.keys(driver.calls).sort()).toEqual([...OPERATION_IDS].sort());
  });
});

/**
 * The order the calls run in: market data first, then an order's life (placed, queried, listed,
 * cancelled), then a second order for cancel_all_orders.
 */
const SEQUENCE: readonly OperationId[] = [
  "ping",
  "server_time",
  "exchange_info",
  "order_book",
  "recent_trades_list",
  "historical_trades",
  "aggTrades",
  "current_average_price",
  "order_book_ticker",
  "symbol_price_ticker",
  "ticker_price_change_statistics24hr",
  "new_order",
  "query_order",
  "open_orders",
  "all_orders",
  "cancel_order",
  "new_order",
  "cancel_all_orders",
];

describe.each(DRIVERS)("$generator against the reference server", (driver) => {
  let server: RunningServer;
  let context: CallContext;
  const seen = new Set<OperationId>();

  beforeAll(async () => {
    server = await startServer({ port: 0 });
    context = { baseUrl: server.url, ...server.demo, symbol: "BTCUSDT" };
    driver.connect(context);
  });
  afterAll(() => server?.close());

  it.each(SEQUENCE.map((id, step) => [`${step + 1}. ${id}`, id] as const))("%s", async (_step, id) => {
    const result = await driver.calls[id](context);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const check = validateResponse(id, result.status, result.body, { request: result.sent });
    expect(check, JSON.stringify(result.body)).toEqual({ valid: true });
    if (id === "new_order") context.orderId = (result.body as { orderId: number }).orderId;
    seen.add(id);
  });

  it("called all 17 operations", () => {
    expect([...seen].sort()).toEqual([...OPERATION_IDS].sort());
  });
});
