// A partial implementation: three operations served (server_time, exchange_info, order_book, by
// the reference server's engine behind a router written here), 404 for everything else, ping
// included. It is judged on those three; the other fourteen are reported "not implemented", one
// line each, and a missing ping does not end the run.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportText } from "../src/report/text.js";
import { dropOnFailure } from "./support/drop-on-failure.js";
import { runContract } from "./support/run.js";
import { startReferenceServer, type TestServer } from "./support/server.js";

const IMPLEMENTED = new Set(["/api/v3/time", "/api/v3/exchangeInfo", "/api/v3/depth"]);
let engine: TestServer;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  engine = await startReferenceServer();
  const server = createServer(
    dropOnFailure(async (req, res) => {
      const target = new URL(req.url ?? "/", "http://partial");
      if (!IMPLEMENTED.has(target.pathname) || req.method !== "GET") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: -1, msg: "not found" }));
        return;
      }
      // The spec's header parameter (the time unit) reaches the engine, as a server reads it.
      const unit = req.headers["x-mbx-time-unit"];
      const upstream = await fetch(`${engine.url}${target.pathname}${target.search}`, {
        headers: typeof unit === "string" ? { "x-mbx-time-unit": unit } : {},
      });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, name) => {
        if (name === "content-type" || name.startsWith("x-mbx")) headers[name] = value;
      });
      res.writeHead(upstream.status, headers);
      res.end(await upstream.text());
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(async () => {
  await close();
  await engine.close();
});

describe("a partial implementation (three operations)", () => {
  it("is judged on its three operations, and the rest are reported not implemented", async () => {
    const result = await runContract({
      baseUrl: url,
      apiKey: engine.credentials.apiKey,
      apiSecret: engine.credentials.apiSecret,
      allowTrading: true,
      seed: 4,
    });
    const text = reportText(result, { color: false });
    expect(result.error, text).toBeUndefined();
    const absent = result.notImplemented.map((n) => n.operationId).sort();
    expect(absent).toHaveLength(result.operations.length - 3);
    expect(absent).toContain("ping");
    expect(absent).not.toContain("order_book");
    for (const id of ["server_time", "exchange_info", "order_book"]) {
      const cells = result.cells.filter((c) => c.operationId === id);
      expect(
        cells.filter((c) => c.status === "failed"),
        `${id}\n${text}`,
      ).toEqual([]);
      expect(
        cells.some((c) => c.status === "passed"),
        id,
      ).toBe(true);
    }
    expect(result.cells.filter((c) => absent.includes(c.operationId) && c.status !== "skipped")).toEqual([]);
    expect(text).toMatch(/not implemented: 14 operation\(s\)/);
    expect(text).toMatch(/^ {2}ping: every request \(\d+\) answered 404$/m);
    expect(result.exitCode).toBe(1);
  });
});
