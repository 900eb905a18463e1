// Safe and honest on implementations written by others. Each problem seen on real servers
// (SockTrader's Binance-local-exchange, Prism mocking Binance's own swagger) has a stand-in here:
// the reference server behind a proxy on 127.0.0.1 that reproduces what those servers did.
import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { fileURLToPath } from "node:url";
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { afterEach, describe, expect, it } from "vitest";
import type { ContractResult } from "../src/index.js";
import type { ProgressEvent } from "../src/kit/context.js";
import { progressLine, reportText } from "../src/report/text.js";
import { withoutUnexercisedPasses } from "../src/session/not-implemented.js";
import type { RoundTrip } from "../src/session/round-trip.js";
import { type Fault, type FaultProxy, mapJson, startFaultProxy } from "./support/fault-proxy.js";
import { runContract } from "./support/run.js";

let server: RunningServer | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  proxy = undefined;
  server = undefined;
});

async function standIn(fault: Fault, options: { now?: () => number; empty?: boolean } = {}) {
  server = await startServer({ port: 0, host: "127.0.0.1", ...options });
  proxy = await startFaultProxy(server.url, fault);
  return { url: proxy.url, upstream: server.url, ...server.demo };
}

const fault = (name: string, parts: Omit<Fault, "name" | "description" | "caughtBy">): Fault => ({
  name,
  description: name,
  caughtBy: [],
  ...parts,
});

interface Observed {
  result: ContractResult;
  text: string;
  progress: ProgressEvent[];
  exchanges: RoundTrip[];
}

async function run(
  target: { url: string; apiKey?: string; apiSecret?: string },
  options: Partial<Parameters<typeof runContract>[0]> = {},
): Promise<Observed> {
  const progress: ProgressEvent[] = [];
  const exchanges: RoundTrip[] = [];
  const result = await runContract({
    baseUrl: target.url,
    ...(target.apiKey ? { apiKey: target.apiKey } : {}),
    ...(target.apiSecret ? { apiSecret: target.apiSecret } : {}),
    allowTrading: target.apiSecret !== undefined,
    referenceExtras: true,
    seed: 11,
    onProgress: (event) => progress.push(event),
    onExchange: (exchange) => exchanges.push(exchange),
    ...options,
  });
  return { result, text: reportText(result, { color: false }), progress, exchanges };
}

/** The open orders of the account on the server itself (past the proxy). */
async function openOrdersUpstream(upstream: string, apiKey: string, apiSecret: string, symbol: string) {
  const query = `symbol=${symbol}&timestamp=${Date.now()}`;
  const signature = createHmac("sha256", apiSecret).update(query).digest("hex");
  const response = await fetch(`${upstream}/api/v3/openOrders?${query}&signature=${signature}`, {
    headers: { "X-MBX-APIKEY": apiKey },
  });
  return (await response.json()) as Array<{ clientOrderId: string }>;
}

/** Runs the marketapi-contract command (the built one) and collects what it printed. */
async function command(args: string[], env: Record<string, string>) {
  const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { code, stdout, stderr };
}

const SIGNED_TIMESTAMP = /(?:^|[?&])timestamp=(\d+)/;

function signedTimestamps(exchanges: RoundTrip[]): number[] {
  return exchanges.flatMap((e) => {
    const match = SIGNED_TIMESTAMP.exec(e.request.url) ?? SIGNED_TIMESTAMP.exec(e.request.body ?? "");
    // auth_enforcement's probe of a timestamp in seconds is not the run's clock.
    return match && Number(match[1]) >= 1e11 ? [Number(match[1])] : [];
  });
}

describe("it trades only when the report says so", () => {
  it("orders placed by other checks while the order lifecycle could not run are reported, by what placed them", async () => {
    // No ticker answers (as on SockTrader's local exchange): the lifecycle has no market price
    // to place its far order from, while the behaviour checks price from the book and trade.
    const noTickers = fault("no tickers", {
      request: (req) =>
        ["/api/v3/ticker/bookTicker", "/api/v3/ticker/price", "/api/v3/avgPrice"].includes(req.path)
          ? { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" }
          : req,
    });
    const { result, text, progress } = await run(await standIn(noTickers));
    expect(result.tradingNote, text).toMatch(/no market price/);
    expect(result.cleanup.created, text).toBeGreaterThan(0);
    expect(text).not.toMatch(/trading operations not exercised/);
    expect(text).toMatch(/the order lifecycle did not run: no market price/);
    // No order of the trading phase's shapes (labelled "… (far from the market)") was placed.
    expect(text).not.toMatch(/\(far from the market\)/);
    const placedBy = result.cleanup.placedBy ?? {};
    expect(Object.values(placedBy).reduce((a, b) => a + b, 0)).toBe(result.cleanup.created);
    expect(placedBy["order lifecycle"]).toBeUndefined();
    // The lifecycle did not run, so the run's first resting order was queried and cancelled at
    // once; this target does both, so the hold is released and the other checks place theirs, each
    // named in the report.
    const stages = progress.flatMap((e) => (e.type === "stage" ? [e.message] : []));
    expect(stages.join("\n")).toMatch(/safety: the target found and cancelled mct-\S+ at once/);
    expect(Object.keys(placedBy).length, text).toBeGreaterThan(1);
    expect(text).toMatch(new RegExp(`orders: ${result.cleanup.created} placed \\(\\d+ by [a-z ]+, `));
    expect(text).not.toMatch(/no more orders/);
    // Each check that traded said so in the progress when it started.
    for (const purpose of Object.keys(placedBy))
      expect(
        stages.some((m) => m.startsWith(purpose)),
        `${purpose} announced`,
      ).toBe(true);
  });

  it("without tickers and with 404 to query_order and cancel_order: one order, queried and cancelled at once, holds the rest", async () => {
    // The lifecycle cannot run, so nothing proves the order reads and cancels before the other
    // checks place orders: their first resting order is queried and cancelled at once, both fail,
    // and no second order is placed.
    const blind = fault("no tickers, no order reads or cancels", {
      request: (req) =>
        ["/api/v3/ticker/bookTicker", "/api/v3/ticker/price", "/api/v3/avgPrice"].includes(req.path) ||
        (req.path === "/api/v3/order" && req.method !== "POST")
          ? { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" }
          : req,
    });
    const { result, text, progress, exchanges } = await run(await standIn(blind));
    const accepted = exchanges.filter(
      (e) =>
        e.op.operationId === "new_order" &&
        (e.response?.status ?? 0) >= 200 &&
        (e.response?.status ?? 0) < 300,
    );
    expect(accepted.length, text).toBe(1);
    const stages = progress.flatMap((e) => (e.type === "stage" ? [e.message] : []));
    expect(stages.join("\n")).toMatch(
      /safety: no more orders: the target has not shown it can query and cancel an order/,
    );
    expect(result.cleanup.leftOpen, text).toHaveLength(1);
  });

  it("a thin exchange without tickers: the history the read checks need is placed, and the report says so", async () => {
    // As on SockTrader's local exchange: no trade history and no tickers. The history phase
    // trades between the run's own orders; the report must not say trading was not exercised.
    const noTickers = fault("thin, no tickers", {
      request: (req) =>
        [
          "/api/v3/ticker/bookTicker",
          "/api/v3/ticker/price",
          "/api/v3/avgPrice",
          "/api/v3/ticker/24hr",
        ].includes(req.path)
          ? { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" }
          : req,
    });
    const { result, text } = await run(await standIn(noTickers, { empty: true }));
    const placedBy = result.cleanup.placedBy ?? {};
    expect(placedBy.history, text).toBeGreaterThan(0);
    expect(result.cleanup.leftOpen, text).toEqual([]);
    expect(text).not.toMatch(/trading operations not exercised/);
    expect(text).toMatch(new RegExp(`orders: ${result.cleanup.created} placed \\(.*\\d+ by history`));
    expect(text).toMatch(/the order lifecycle did not run/);
  });
});

describe("an order whose state cannot be confirmed is listed, and the command exits 3 (never 0 or 1)", () => {
  const unclear = [
    { name: "404 without an error code", status: 404, type: "text/plain", body: "Not Found" },
    {
      name: "503 with a JSON body",
      status: 503,
      type: "application/json",
      body: '{"code":-1001,"msg":"busy"}',
    },
  ];
  it.each(unclear)("cancel and query answer $name: the orders still open are listed", async (answer) => {
    // Cancels and order reads fail as on SockTrader's exchange; the orders stay open upstream.
    const refuse = fault(`order reads ${answer.status}`, {
      request: (req) =>
        ["/api/v3/order", "/api/v3/openOrders"].includes(req.path) && req.method !== "POST"
          ? { status: answer.status, headers: { "content-type": answer.type }, body: answer.body }
          : req,
    });
    const target = await standIn(refuse);
    const { result, text } = await run(target, { only: ["order_lifecycle"] });
    const stillOpen = await openOrdersUpstream(target.upstream, target.apiKey, target.apiSecret, "BTCUSDT");
    expect(stillOpen.length, text).toBeGreaterThan(0);
    expect(result.exitCode, text).toBe(2);
    expect(result.error?.message).toMatch(/orders may still be open/);
    for (const order of stillOpen) {
      expect(
        result.cleanup.leftOpen.some((line) => line.startsWith(`${order.clientOrderId} on BTCUSDT`)),
      ).toBe(true);
    }
    expect(result.cleanup.leftOpen.join("\n")).toMatch(
      new RegExp(`cancel_order answered status ${answer.status}`),
    );
    expect(text).not.toMatch(/none left open/);
  });

  it("the command exits 3, lists the orders and says why once, after the table", async () => {
    const refuse = fault("order reads 404", {
      request: (req) =>
        ["/api/v3/order", "/api/v3/openOrders"].includes(req.path) && req.method !== "POST"
          ? { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" }
          : req,
    });
    const target = await standIn(refuse);
    const { code, stdout, stderr } = await command(
      ["--base-url", target.url, "--allow-trading", "--only", "order_lifecycle", "--seed", "4"],
      { MARKETAPI_API_KEY: target.apiKey, MARKETAPI_API_SECRET: target.apiSecret },
    );
    const stillOpen = await openOrdersUpstream(target.upstream, target.apiKey, target.apiSecret, "BTCUSDT");
    expect(stillOpen.length, stdout + stderr).toBeGreaterThan(0);
    expect(code, stdout + stderr).toBe(3);
    for (const order of stillOpen) expect(stdout + stderr).toContain(order.clientOrderId);
    expect(stdout).not.toMatch(/none left open/);
    expect(stderr.match(/orders may still be open/g), stderr).toHaveLength(1);
  });

  it("the spec's unknown-order code is a clear answer: an order the server does not know is closed", async () => {
    // Cancels refused with -2011 (as for a filled order): no order is left in doubt.
    const unknown = fault("cancel says unknown", {
      request: (req) =>
        req.path === "/api/v3/order" && req.method === "DELETE"
          ? {
              status: 400,
              headers: { "content-type": "application/json" },
              body: '{"code":-2011,"msg":"Unknown order sent."}',
            }
          : req,
    });
    const { result, text } = await run(await standIn(unknown), { only: ["order_lifecycle"] });
    expect(
      result.cleanup.leftOpen.filter((l) => l.includes("cancel_order answered")),
      text,
    ).toEqual([]);
  });
});

describe("an implausible clock offset is refused before anything is signed with it", () => {
  const SWAGGER_EXAMPLE = 1_499_827_319_559; // 2017-07-12, the serverTime of Binance's own swagger
  const fixedTime = (withDate: boolean) =>
    fault("server time fixed in 2017", {
      response: (req, res) => {
        if (req.path !== "/api/v3/time") return res;
        const fixed = mapJson(res, () => ({ serverTime: SWAGGER_EXAMPLE }));
        if (withDate) return fixed;
        const { date: _date, ...headers } = fixed.headers;
        return { ...fixed, headers, sendDate: false };
      },
    });

  it.each([
    { how: "with the server's Date header telling the real time", withDate: true, why: /Date header/ },
    {
      how: "without a Date header (a second read shows it stands still)",
      withDate: false,
      why: /stands still/,
    },
  ])("a serverTime fixed in 2017, $how", async ({ withDate, why }) => {
    const { result, text, exchanges } = await run(await standIn(fixedTime(withDate)), {
      only: ["clock_sanity", "auth_enforcement"],
    });
    const clock = result.cells.find((c) => c.check === "clock_sanity" && c.operationId === "server_time");
    expect(clock?.status, text).toBe("failed");
    expect(clock?.failures[0]?.message).toMatch(why);
    expect(clock?.failures[0]?.message).toMatch(/signing uses this machine's clock/);
    // Credentials were proven and every signed request carried this machine's time.
    expect(result.error, text).toBeUndefined();
    const stamps = signedTimestamps(exchanges);
    expect(stamps.length).toBeGreaterThan(5);
    for (const stamp of stamps) expect(Math.abs(stamp - Date.now())).toBeLessThan(10 * 60_000);
  });

  it("a server whose clock really runs two hours ahead is signed for with its clock", async () => {
    const twoHours = 2 * 3_600_000;
    const noDate = fault("no Date header", {
      response: (_req, res) => {
        const { date: _date, ...headers } = res.headers;
        return { ...res, headers, sendDate: false };
      },
    });
    const { result, text, exchanges } = await run(
      await standIn(noDate, { now: () => Date.now() + twoHours }),
      { only: ["clock_sanity", "auth_enforcement"] },
    );
    const clock = result.cells.find((c) => c.check === "clock_sanity" && c.operationId === "server_time");
    expect(clock?.failures[0]?.message, text).toMatch(
      /2\.0 h ahead.*it runs, so signing uses the server's clock/,
    );
    expect(result.error, text).toBeUndefined();
    const auth = result.cells.filter((c) => c.check === "auth_enforcement" && c.status === "failed");
    expect(auth, text).toEqual([]);
    for (const stamp of signedTimestamps(exchanges))
      expect(Math.abs(stamp - (Date.now() + twoHours))).toBeLessThan(10 * 60_000);
  });

  it("a plausible clock that stands still fails at the end of the run", async () => {
    let frozen: number | undefined;
    const stopped = fault("clock stopped at start", {
      response: (req, res) => {
        if (req.path !== "/api/v3/time") return res;
        return mapJson(res, (json) => {
          frozen ??= (json as { serverTime: number }).serverTime;
          return { serverTime: frozen };
        });
      },
    });
    const { result, text } = await run(await standIn(stopped), { only: ["clock_sanity"] });
    const clock = result.cells.find((c) => c.check === "clock_sanity" && c.operationId === "server_time");
    expect(clock?.status, text).toBe("failed");
    expect(clock?.failures[0]?.message).toMatch(/the server clock stands still/);
  });
});

describe("progress lines and verdicts agree; no request, no tick", () => {
  /** Per operation: the failures its progress lines showed, and whether any line had a tick with no request. */
  function lines(progress: ProgressEvent[]) {
    const failures = new Map<string, number>();
    const absentLines = new Set<string>();
    for (const event of progress) {
      if (event.type !== "operation") continue;
      failures.set(event.operationId, (failures.get(event.operationId) ?? 0) + event.failures);
      if (event.notImplemented !== undefined) absentLines.add(event.operationId);
    }
    return { failures, absentLines };
  }

  it("on a Prism-like target (404 to some operations, a clock in seconds), lines add up to the verdicts", async () => {
    const prismLike = fault("prism-like", {
      request: (req) =>
        ["/api/v3/depth", "/api/v3/historicalTrades", "/api/v3/ping"].includes(req.path)
          ? { status: 404, headers: { "content-type": "application/json" }, body: '{"code":-1,"msg":"none"}' }
          : req,
      response: (req, res) =>
        req.path === "/api/v3/time"
          ? mapJson(res, (j) => ({ serverTime: Math.floor((j as { serverTime: number }).serverTime / 1000) }))
          : res,
    });
    const { result, text, progress } = await run(await standIn(prismLike));
    const { failures, absentLines } = lines(progress);
    const absent = new Set(result.notImplemented.map((n) => n.operationId));
    expect([...absent].sort(), text).toEqual(["historical_trades", "order_book", "ping"]);
    for (const operationId of result.operations) {
      const failed = result.cells.some((c) => c.operationId === operationId && c.status === "failed");
      expect((failures.get(operationId) ?? 0) > 0, `${operationId}: progress vs verdict\n${text}`).toBe(
        failed,
      );
      if (absent.has(operationId)) expect(absentLines.has(operationId), operationId).toBe(true);
    }
    // The clock failure of the start-up probe shows on server_time's line.
    expect(failures.get("server_time")).toBeGreaterThan(0);
  });

  it("an operation that got no request never shows a tick, in the lines or in the table", async () => {
    // No credentials: the signed operations get no request at all.
    const { url } = await standIn(fault("none", {}));
    const { result, progress, exchanges, text } = await run({ url });
    const requested = new Set(exchanges.map((e) => e.op.operationId));
    const unrequested = result.operations.filter((o) => !requested.has(o));
    expect(unrequested.length, text).toBeGreaterThan(0);
    for (const operationId of unrequested) {
      const shown = progress.filter((e) => e.type === "operation" && e.operationId === operationId);
      expect(shown.length, operationId).toBeGreaterThan(0);
      for (const event of shown) {
        const line = progressLine(event, { color: false });
        expect(line, line).toMatch(new RegExp(`^– ${operationId} .*no request sent`));
      }
      const passed = result.cells.filter((c) => c.operationId === operationId && c.status === "passed");
      expect(passed, operationId).toEqual([]);
    }
  });
});

describe("withoutUnexercisedPasses: a cell passes only for an operation that got a request", () => {
  const cell = (operationId: string, status: "passed" | "failed" | "skipped") => ({
    check: "order_lifecycle" as const,
    operationId,
    status,
    passed: status === "passed" ? 2 : 0,
    failed: status === "failed" ? 1 : 0,
    failures: [],
  });
  it.each([
    { given: cell("query_order", "passed"), requests: 0, want: "skipped" },
    { given: cell("query_order", "passed"), requests: 3, want: "passed" },
    { given: cell("query_order", "failed"), requests: 0, want: "failed" },
    { given: cell("query_order", "skipped"), requests: 0, want: "skipped" },
  ])("$given.status with $requests requests → $want", ({ given, requests, want }) => {
    const [out] = withoutUnexercisedPasses([given], () => requests);
    expect(out?.status).toBe(want);
    if (want === "skipped" && given.status === "passed")
      expect(out?.reason).toBe("no request was sent to it");
  });
});

describe("refused credentials stop the run before the table, with the cause once", () => {
  it("marketapi-contract with a wrong secret prints the cause once and no table", async () => {
    const target = await standIn(fault("none", {}));
    const { code, stdout, stderr } = await command(
      ["--base-url", target.url, "--allow-trading", "--seed", "3"],
      {
        MARKETAPI_API_KEY: target.apiKey,
        MARKETAPI_API_SECRET: "not-the-secret",
      },
    );
    expect(code, stdout + stderr).toBe(2);
    expect(stdout).not.toMatch(/^operation /m);
    expect(stdout).not.toMatch(/passed, .* failed, .* skipped/);
    expect((stdout + stderr).match(/-1022/g), stdout + stderr).toHaveLength(1);
    expect(stderr).toMatch(/credentials were refused: .*status 400 code -1022/);
  });
});
