import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EXPLORE_BUDGET } from "../src/explore/index.js";
import type { ContractResult } from "../src/index.js";
import { reportText } from "../src/report/text.js";
import { runContract } from "./support/run.js";
import { startReferenceServer, type TestServer } from "./support/server.js";

function failuresOf(result: ContractResult): string {
  return result.exitCode === 0 ? "" : reportText(result, { color: false });
}

describe("against the reference server (no false positives)", () => {
  let server: TestServer;
  let result: ContractResult;

  beforeAll(async () => {
    server = await startReferenceServer();
    result = await runContract({
      baseUrl: server.url,
      referenceExtras: true,
      apiKey: server.credentials.apiKey,
      apiSecret: server.credentials.apiSecret,
      allowTrading: true,
      seed: 1,
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it("passes every check that runs", () => {
    expect(result.error, failuresOf(result)).toBeUndefined();
    expect(result.summary.failed, failuresOf(result)).toBe(0);
    expect(result.exitCode).toBe(0);
  });

  it("runs every check on the operations it applies to", () => {
    const cell = (check: string, op: string) =>
      result.cells.find((c) => c.check === check && c.operationId === op);
    for (const op of result.operations) {
      for (const check of [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
        "response_headers_conformance",
      ]) {
        expect(cell(check, op)?.status, `${check} × ${op}`).toBe("passed");
      }
      if (op !== "ping" && op !== "server_time")
        expect(cell("negative_data_rejection", op)?.status, `negative × ${op}`).toBe("passed");
    }
    for (const op of [
      "recent_trades_list",
      "historical_trades",
      "new_order",
      "cancel_order",
      "cancel_all_orders",
      "query_order",
      "open_orders",
      "all_orders",
    ]) {
      expect(cell("auth_enforcement", op)?.status, `auth × ${op}`).toBe("passed");
    }
    for (const op of [
      "order_book",
      "historical_trades",
      "aggTrades",
      "recent_trades_list",
      "all_orders",
      "new_order",
    ]) {
      expect(cell("defaults_honoured", op)?.status, `defaults × ${op}`).toBe("passed");
    }
    for (const op of [
      "new_order",
      "query_order",
      "open_orders",
      "cancel_order",
      "all_orders",
      "cancel_all_orders",
    ]) {
      expect(cell("order_lifecycle", op)?.status, `lifecycle × ${op}`).toBe("passed");
    }
  });

  it("leaves no order open and stays within the request budget", () => {
    expect(result.cleanup.leftOpen).toEqual([]);
    expect(result.cleanup.created).toBeGreaterThan(0);
    expect(result.stats.requests).toBeLessThanOrEqual(result.maxRequests + result.cleanup.created * 2);
  });

  // The phases before the exploration grow with every check; were its budget not kept for it,
  // a default run would explore a sequence or two and nothing would say so.
  it("gives a default run's every phase its share: no check cut by the budget, the exploration its whole budget", () => {
    const cut = result.cells.filter((c) => c.status === "skipped" && /--max-requests/.test(c.reason ?? ""));
    expect(cut.map((c) => `${c.check} × ${c.operationId}: ${c.reason}`)).toEqual([]);
    expect(result.exploration?.budget).toBe(DEFAULT_EXPLORE_BUDGET);
  });

  it("is reproducible with the same seed", async () => {
    const again = await runContract({
      baseUrl: server.url,
      referenceExtras: true,
      apiKey: server.credentials.apiKey,
      apiSecret: server.credentials.apiSecret,
      only: ["not_a_server_error"],
      seed: 1,
      maxRequests: 60,
    });
    const cases: string[] = [];
    const third = await runContract({
      baseUrl: server.url,
      only: ["not_a_server_error"],
      seed: 1,
      maxRequests: 120,
      onExchange: (e) => cases.push(e.case),
    });
    const casesAgain: string[] = [];
    await runContract({
      baseUrl: server.url,
      only: ["not_a_server_error"],
      seed: 1,
      maxRequests: 120,
      onExchange: (e) => casesAgain.push(e.case),
    });
    expect(again.exitCode).toBe(0);
    expect(third.exitCode).toBe(0);
    expect(casesAgain).toEqual(cases);
    expect(cases.some((c) => c.startsWith("generated (seed"))).toBe(true);
  });
});
