// A thin target: the reference server started empty (no book, no trades). With trading allowed
// the tester makes the history the order, paging and window checks need, so they judge; without
// it they note what they could not observe. A fault on such a target is caught.
import { startServer } from "@marketapi/reference-server";
import { describe, expect, it } from "vitest";
import type { ContractResult } from "../src/index.js";
import { reportText } from "../src/report/text.js";
import { behaviourFaults } from "./support/behaviour-faults.js";
import { type Fault, startFaultProxy } from "./support/fault-proxy.js";
import { runContract } from "./support/run.js";

const HISTORY_CHECKS = ["list_order", "cursor_paging", "time_window"] as const;

async function againstEmpty(options: { trading: boolean; fault?: Fault }): Promise<ContractResult> {
  const server = await startServer({ port: 0, host: "127.0.0.1", empty: true, seed: 3 });
  const proxy = await startFaultProxy(server.url, options.fault);
  try {
    return await runContract({
      baseUrl: proxy.url,
      apiKey: server.demo.apiKey,
      apiSecret: server.demo.apiSecret,
      allowTrading: options.trading,
      referenceExtras: true,
      seed: 3,
    });
  } finally {
    await proxy.close();
    await server.close();
  }
}

const passed = (result: ContractResult, check: string, operationId: string) =>
  result.cells.some((c) => c.check === check && c.operationId === operationId && c.status === "passed");

const failed = (result: ContractResult): string[] => [
  ...new Set(result.cells.filter((c) => c.status === "failed").map((c) => c.check)),
];

const fault = (name: string) => {
  const found = behaviourFaults({ apiSecret: "marketapi-demo-api-secret" }).find((f) => f.name === name);
  if (!found) throw new Error(`no fault named ${name}`);
  return found;
};

describe("a thin target (the reference server started empty)", () => {
  it("with trading allowed, the tester makes history and the order, paging and window checks judge", async () => {
    const result = await againstEmpty({ trading: true });
    expect(result.exitCode, reportText(result, { color: false })).toBe(0);
    for (const [check, operationId] of [
      ["list_order", "order_book"],
      ["list_order", "recent_trades_list"],
      ["list_order", "historical_trades"],
      ["list_order", "aggTrades"],
      ["list_order", "all_orders"],
      ["cursor_paging", "historical_trades"],
      ["cursor_paging", "aggTrades"],
      ["cursor_paging", "all_orders"],
      ["time_window", "aggTrades"],
      ["time_window", "all_orders"],
    ] as const)
      expect(passed(result, check, operationId), `${check} on ${operationId}`).toBe(true);
    const notes = JSON.stringify(result);
    expect(notes).not.toContain("order not observable");
    expect(notes).not.toContain("paging not observable");
    expect(notes).not.toContain("window not observable");
    expect(notes).toContain("(making 501 items is not cheap)");
    // The history cleaned up after itself: nothing was left for the end-of-run clean-up to cancel.
    expect(result.cleanup.created).toBeGreaterThan(2 * 8);
    expect(result.cleanup.cancelledAtEnd).toBe(0);
    expect(result.cleanup.leftOpen).toEqual([]);
  });

  it("without trading allowed, the same checks note what they could not observe", async () => {
    const result = await againstEmpty({ trading: false });
    const text = JSON.stringify(result);
    expect(text).toContain("order not observable");
    expect(text).toContain("paging not observable");
    for (const check of HISTORY_CHECKS)
      expect(passed(result, check, "aggTrades"), `${check} on aggTrades`).toBe(false);
  });

  it.each([
    "trades-newest-first",
    "bids-worst-first",
    "aggTrades-fromId-exclusive",
    "aggTrades-endTime-exclusive",
  ])("catches %s on the thin target", async (name) => {
    const injected = fault(name);
    const result = await againstEmpty({ trading: true, fault: injected });
    expect(result.exitCode).toBe(1);
    expect(
      injected.caughtBy.some((c) => failed(result).includes(c)),
      failed(result).join(", "),
    ).toBe(true);
  });
});
