// A judge that never gives a false green: credentials proven at start, trading without
// credentials refused, and the server clock judged with its offset stated.
import { describe, expect, it } from "vitest";
import { type Fault, mapJson, startFaultProxy } from "./support/fault-proxy.js";
import { runContract } from "./support/run.js";
import { startReferenceServer } from "./support/server.js";

async function withProxy<T>(
  fault: Fault | undefined,
  body: (url: string, secret: string, key: string) => Promise<T>,
) {
  const server = await startReferenceServer();
  const proxy = await startFaultProxy(server.url, fault);
  try {
    return await body(proxy.url, server.credentials.apiSecret, server.credentials.apiKey);
  } finally {
    await proxy.close();
    await server.close();
  }
}

const clock = (change: (t: number) => number): Fault => ({
  name: "clock",
  description: "",
  caughtBy: [],
  response: (req, res) =>
    req.path === "/api/v3/time"
      ? mapJson(res, (j) => ({ serverTime: change((j as { serverTime: number }).serverTime) }))
      : res,
});

describe("credentials are proven at start", () => {
  it("a wrong secret stops the run with exit 2, naming the code", async () => {
    const result = await withProxy(undefined, (url, _secret, apiKey) =>
      runContract({ baseUrl: url, apiKey, apiSecret: "not-the-secret", seed: 3 }),
    );
    expect(result.exitCode).toBe(2);
    expect(result.error?.kind).toBe("usage");
    expect(result.error?.message).toMatch(/credentials were refused: .*code -1022/);
  });

  it("an unknown key stops the run with exit 2, naming the code", async () => {
    const result = await withProxy(undefined, (url, apiSecret) =>
      runContract({ baseUrl: url, apiKey: "nobody-has-this-key", apiSecret, seed: 3 }),
    );
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toMatch(/credentials were refused: .*code -2015/);
  });

  it("--allow-trading without credentials is a usage error (exit 2), not a green run", async () => {
    const result = await withProxy(undefined, (url) =>
      runContract({ baseUrl: url, allowTrading: true, seed: 3 }),
    );
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toMatch(/--allow-trading needs --api-key and --api-secret/);
  });
});

describe("clock sanity", () => {
  it("a server time in seconds fails server_time, saying so", async () => {
    const result = await withProxy(
      clock((t) => Math.floor(t / 1000)),
      (url) => runContract({ baseUrl: url, seed: 3, only: ["clock_sanity"] }),
    );
    const cell = result.cells.find((c) => c.check === "clock_sanity" && c.operationId === "server_time");
    expect(cell?.status).toBe("failed");
    expect(cell?.failures[0]?.message).toMatch(/looks like seconds/);
    expect(result.exitCode).toBe(1);
  });

  it("a clock nine years off fails server_time, stating the offset", async () => {
    const nine = 9 * 365.25 * 86_400_000;
    const result = await withProxy(
      clock((t) => t + nine),
      (url) => runContract({ baseUrl: url, seed: 3, only: ["clock_sanity"] }),
    );
    const cell = result.cells.find((c) => c.check === "clock_sanity" && c.operationId === "server_time");
    expect(cell?.failures[0]?.message).toMatch(/9\.0 years ahead/);
  });

  it("the reference server's clock passes", async () => {
    const result = await withProxy(undefined, (url) =>
      runContract({ baseUrl: url, seed: 3, only: ["clock_sanity"] }),
    );
    expect(
      result.cells.find((c) => c.check === "clock_sanity" && c.operationId === "server_time")?.status,
    ).toBe("passed");
    expect(result.exitCode).toBe(0);
  });
});

describe("--include and --exclude", () => {
  it("judge only the operations named, by operationId or by tag", async () => {
    const result = await withProxy(undefined, (url) =>
      runContract({ baseUrl: url, seed: 3, include: ["Market data"], exclude: ["ping", "aggTrades"] }),
    );
    expect(result.exitCode).toBe(0);
    expect(result.operations).not.toContain("ping");
    expect(result.operations).not.toContain("aggTrades");
    expect(result.operations).toContain("order_book");
    expect(result.operations).not.toContain("new_order");
    expect(new Set(result.cells.map((c) => c.operationId))).toEqual(new Set(result.operations));
  });

  it("a name that is neither an operationId nor a tag is a usage error", async () => {
    const result = await runContract({ baseUrl: "http://127.0.0.1:9", include: ["orderbook"] });
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toMatch(/--include: orderbook is neither an operationId nor a tag/);
  });
});

describe("notes on what could not be observed", () => {
  it("appear in the text report and in JUnit, not only in JSON", async () => {
    const { reportText } = await import("../src/report/text.js");
    const { junitXml } = await import("../src/report/junit.js");
    const result = await withProxy(undefined, (url, apiSecret, apiKey) =>
      runContract({ baseUrl: url, apiKey, apiSecret, allowTrading: true, seed: 3 }),
    );
    const noted = result.cells.find((c) => c.status === "passed" && c.reason);
    expect(noted).toBeDefined();
    expect(reportText(result, { color: false })).toContain(
      `${noted!.check} · ${noted!.operationId}: ${noted!.reason}`,
    );
    expect(junitXml(result)).toMatch(/<system-out>note: /);
  });
});

describe("grouping", () => {
  it("shows a failure with the same check and cause once, listing the operations it hit", async () => {
    const { reportText } = await import("../src/report/text.js");
    const wrongCode: Fault = {
      name: "wrong-code",
      description: "",
      caughtBy: [],
      response: (_req, res) =>
        res.status === 400 && res.body.includes("-1121")
          ? { ...res, body: res.body.replace("-1121", "-1100") }
          : res,
    };
    const result = await withProxy(wrongCode, (url) =>
      runContract({ baseUrl: url, seed: 3, only: ["unknown_reference"] }),
    );
    const text = reportText(result, { color: false });
    const failedOps = result.cells.filter((c) => c.status === "failed").length;
    expect(failedOps).toBeGreaterThan(3);
    expect(text.match(/^\d+\) unknown_reference/gm)).toHaveLength(1);
    expect(text).toMatch(/same cause on (\w+ \(#\d+\), ){2,}/);
  });
});
