// Safe on any server: a clean-up that a silent server cannot stretch past its bound, valid
// credentials refused by the target judged as the target's fault, and no order placed while one
// of the run's may still be open on a target that has not shown it can query and cancel orders.
import { createServer as createTcpServer, type Server, type Socket } from "node:net";
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { loadOpenApi } from "@marketapi/spec";
import { afterEach, describe, expect, it } from "vitest";
import { CHECK_NAMES } from "../src/checks/index.js";
import { buildContractModel } from "../src/core/operations.js";
import { OrderLedger } from "../src/kit/ledger.js";
import { cleanup } from "../src/phases/cleanup.js";
import type { RoundTrip } from "../src/session/round-trip.js";
import { Session } from "../src/session/session.js";
import { Recorder } from "../src/session/verdicts.js";
import { type Fault, type FaultProxy, startFaultProxy } from "./support/fault-proxy.js";
import { roundTrip } from "./support/round-trips.js";
import { runContract } from "./support/run.js";

let server: RunningServer | undefined;
let proxy: FaultProxy | undefined;
let silent: { server: Server; sockets: Socket[] } | undefined;
afterEach(async () => {
  await proxy?.close();
  await server?.close();
  if (silent) {
    for (const socket of silent.sockets) socket.destroy();
    await new Promise((resolve) => silent!.server.close(resolve));
  }
  proxy = undefined;
  server = undefined;
  silent = undefined;
});

const fault = (name: string, request: Fault["request"]): Fault => ({
  name,
  description: name,
  caughtBy: [],
  request,
});

async function standIn(f: Fault) {
  server = await startServer({ port: 0, host: "127.0.0.1" });
  proxy = await startFaultProxy(server.url, f);
  return { url: proxy.url, ...server.demo };
}

describe("the clean-up is bounded", () => {
  it("against a server that stopped answering, it sends two requests and lists every order left", async () => {
    const sockets: Socket[] = [];
    const tcp = createTcpServer((socket) => sockets.push(socket)); // accepts, never answers
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    silent = { server: tcp, sockets };
    const model = buildContractModel(loadOpenApi());
    const session = new Session({
      model,
      baseUrl: `http://127.0.0.1:${(tcp.address() as { port: number }).port}`,
      headers: {},
      credentials: { apiKey: "k", apiSecret: "s" },
      timeoutMs: 200, // time limit under test: each clean-up request waits this long for nothing
      maxRequests: 100,
      recorder: new Recorder(
        CHECK_NAMES,
        model.operations.map((o) => o.operationId),
      ),
    });
    const ledger = new OrderLedger("test");
    for (let i = 0; i < 6; i += 1) ledger.adopt("BTCUSDT", ledger.nextClientOrderId(), 100 + i);
    const report = await cleanup(session, ledger);
    expect(session.requests).toBe(2);
    expect(report.leftOpen).toHaveLength(6);
    expect(report.leftOpen.at(-1)).toMatch(/not sent: the server stopped answering during the clean-up/);
  });
});

describe("valid credentials refused by the target", () => {
  it("are the target's fault when another signed read accepts them (exit 1, not a usage error)", async () => {
    const target = await standIn(
      fault("open_orders refuses the key", (req) =>
        req.path === "/api/v3/openOrders" && req.method === "GET"
          ? {
              status: 401,
              headers: { "content-type": "application/json" },
              body: '{"code":-2015,"msg":"Invalid API-key, IP, or permissions for action."}',
            }
          : req,
      ),
    );
    const result = await runContract({
      baseUrl: target.url,
      apiKey: target.apiKey,
      apiSecret: target.apiSecret,
      only: ["auth_enforcement"],
      seed: 3,
    });
    expect(result.error, JSON.stringify(result.error)).toBeUndefined();
    expect(result.exitCode).toBe(1);
    const cell = result.cells.find((c) => c.check === "auth_enforcement" && c.operationId === "open_orders");
    expect(cell?.failures.map((f) => f.message).join("\n")).toMatch(
      /a properly signed request was refused \(status 401 code -2015.*\); the same credentials were accepted by /,
    );
  });
});

describe("orders are held until the target has shown it can query and cancel one", () => {
  it("a target answering 404 to query_order and cancel_order gets one order, not more", async () => {
    const target = await standIn(
      fault("no order reads or cancels", (req) =>
        req.path === "/api/v3/order" && req.method !== "POST"
          ? { status: 404, headers: { "content-type": "text/plain" }, body: "Not Found" }
          : req,
      ),
    );
    const accepted: RoundTrip[] = [];
    const stages: string[] = [];
    const result = await runContract({
      baseUrl: target.url,
      apiKey: target.apiKey,
      apiSecret: target.apiSecret,
      allowTrading: true,
      referenceExtras: true,
      seed: 5,
      onExchange: (exchange) => {
        const status = exchange.response?.status ?? 0;
        if (exchange.op.operationId === "new_order" && status >= 200 && status < 300) accepted.push(exchange);
      },
      onProgress: (event) => {
        if (event.type === "stage") stages.push(event.message);
      },
    });
    expect(accepted.length, stages.join("\n")).toBe(1);
    // The one order cannot be confirmed cancelled: listed, and the run says it could not finish.
    expect(result.cleanup.leftOpen).toHaveLength(1);
    const skips = result.cells.map((c) => c.reason ?? "").join("\n");
    expect(skips).toMatch(/no more orders: the target has not shown it can query and cancel an order/);
  });
});

describe("a client order id the second account uses too", () => {
  it("is two entries of the ledger, each closed and cancelled as its own account", () => {
    const ledger = new OrderLedger("t");
    const second = { apiKey: "second-key", apiSecret: "second-secret" };
    const id = ledger.nextClientOrderId();
    ledger.sent("BTCUSDT", id, "account isolation");
    ledger.opened(id, 7);
    // The target has shown it can query and cancel an order of the run: more orders may be placed.
    ledger.observe(roundTrip("query_order", [], { status: 200, json: { clientOrderId: id } }));
    ledger.observe(roundTrip("cancel_order", [], { status: 200, json: { origClientOrderId: id } }));
    ledger.sent("BTCUSDT", id, "account isolation", second);
    ledger.opened(id, 8, second);
    ledger.closed(id, second);
    expect(ledger.get(id)?.state).toBe("open");
    expect(ledger.get(id, second)?.state).toBe("closed");
    expect(ledger.outstanding().map((e) => [e.orderId, e.as])).toEqual([[7, undefined]]);
    expect(ledger.placedCount).toBe(2);
  });
});

describe("an order placed without a client order id", () => {
  it("is followed in the ledger under the id the target generated, which the clean-up cancels by", () => {
    const ledger = new OrderLedger("t");
    const placeholder = ledger.nextClientOrderId();
    ledger.sent("BTCUSDT", placeholder, "every symbol");
    ledger.renamed(placeholder, "x7Gq2LkP9sZr4TbN1cVw8e", 315);
    expect(ledger.owns(placeholder)).toBe(false);
    expect(ledger.outstanding()).toEqual([
      {
        symbol: "BTCUSDT",
        clientOrderId: "x7Gq2LkP9sZr4TbN1cVw8e",
        orderId: 315,
        state: "open",
        purpose: "every symbol",
      },
    ]);
    ledger.closed("x7Gq2LkP9sZr4TbN1cVw8e");
    expect(ledger.outstanding()).toEqual([]);
  });
});
