import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { hmacHex, reportText } from "../src/index.js";
import { dropOnFailure } from "./support/drop-on-failure.js";
import { runContract } from "./support/run.js";
import { startReferenceServer } from "./support/server.js";

const servers: Server[] = [];

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
): Promise<string> {
  const server = createServer(dropOnFailure(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe("servers that are down, slow or not the API", () => {
  it("a server that is down: exit 2 with a clear message", async () => {
    const url = await listen(() => {});
    const server = servers.pop()!;
    await new Promise((resolve) => server.close(resolve));
    const result = await runContract({ baseUrl: url, timeoutMs: 1000 }); // time limit under test: refused at once, not timed out
    expect(result.exitCode).toBe(2);
    expect(result.error?.kind).toBe("connection");
    expect(result.error?.message).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+: connection refused/);
  });

  it("a server that never answers: the per-request timeout ends the probe, exit 2", async () => {
    let received = 0;
    const url = await listen(() => {
      received++; // and never answers
    });
    const result = await runContract({ baseUrl: url, timeoutMs: 300 }); // time limit under test
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toMatch(/no answer within 300 ms/);
    expect(received).toBe(1);
  });

  it("a server that answers HTML: exit 2, says it is not JSON", async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Welcome to nginx!</body></html>");
    });
    const result = await runContract({ baseUrl: url });
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toMatch(/answered status 200 with text\/html that is not JSON/);
    expect(result.error?.message).toMatch(/base URL of the trading API/);
  });

  it("a server that answers 404 everywhere: exit 2, asks whether the base URL is right", async () => {
    const url = await listen((_req, res) => {
      res.writeHead(404, { "content-type": "application/json" });
      res.end('{"error":"not found"}');
    });
    const result = await runContract({ baseUrl: url });
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toMatch(/answered 404, and so did .*: is .* the base URL/);
  });

  it("a server that answers JSON 500 everywhere: contract failures, exit 1", async () => {
    const url = await listen((_req, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end('{"code":-1000,"msg":"An unknown error occurred while processing the request."}');
    });
    const result = await runContract({ baseUrl: url, maxRequests: 80 });
    expect(result.exitCode).toBe(1);
    expect(result.cells.some((c) => c.check === "not_a_server_error" && c.status === "failed")).toBe(true);
  });

  it("a server that stops answering some operations: they are given up after a ping, no hang", async () => {
    const reference = await startReferenceServer();
    // Forwards to the reference server; while `hang` is set, never answers the order book and
    // the trade list. Counts the requests for those two in each mode.
    let hang = false;
    const sent = { answered: 0, unanswered: 0 };
    const proxy = await listen(async (req, res) => {
      if (/^\/api\/v3\/(depth|trades)\b/.test(req.url ?? "")) {
        sent[hang ? "unanswered" : "answered"]++;
        if (hang) return;
      }
      const upstream = await fetch(`${reference.url}${req.url}`, { method: req.method });
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
      res.end(await upstream.text());
    });
    try {
      await runContract({ baseUrl: proxy, seed: 1 });
      hang = true;
      const result = await runContract({ baseUrl: proxy, timeoutMs: 300, seed: 1 }); // time limit under test
      // Given up after a few unanswered requests, where a full run sends them many.
      expect(sent.unanswered).toBeGreaterThan(0);
      expect(sent.unanswered).toBeLessThan(sent.answered / 2);
      expect([1, 2]).toContain(result.exitCode);
      expect(result.cells.some((c) => c.check === "not_a_server_error" && c.status === "failed")).toBe(true);
      const timeouts = result.cells
        .flatMap((c) => c.failures)
        .filter((f) => /no answer within 300 ms/.test(f.message));
      expect(timeouts.length).toBeGreaterThan(0);
    } finally {
      await reference.close();
    }
  });

  it("waits out a short 429 and stops on a long one (no IP ban)", async () => {
    const reference = await startReferenceServer();
    let limited = 0;
    let lastUsed = "0";
    const makeLimiter = (retryAfter: string, times: number) =>
      listen(async (req, res) => {
        if (req.url?.startsWith("/api/v3/depth") && limited < times) {
          limited += 1;
          // The count as the upstream last showed it: the refused request never reached it.
          res.writeHead(429, {
            "content-type": "application/json",
            "retry-after": retryAfter,
            "x-mbx-used-weight-1m": lastUsed,
          });
          res.end('{"code":-1003,"msg":"Too much request weight used."}');
          return;
        }
        const upstream = await fetch(`${reference.url}${req.url}`, {
          method: req.method,
          // The API key and the spec's header parameter (the time unit), as a server reads them.
          headers: Object.fromEntries(
            ["x-mbx-apikey", "x-mbx-time-unit"].flatMap((name) => {
              const value = req.headers[name];
              return typeof value === "string" ? [[name, value]] : [];
            }),
          ),
        });
        // The upstream's own weight counter: rate_counters judges every request by it.
        lastUsed = upstream.headers.get("x-mbx-used-weight-1m") ?? lastUsed;
        res.writeHead(upstream.status, {
          "content-type": upstream.headers.get("content-type") ?? "",
          "x-mbx-used-weight-1m": lastUsed,
        });
        res.end(await upstream.text());
      });
    try {
      const short = await runContract({
        baseUrl: await makeLimiter("1", 1),
        maxRequests: 120,
        referenceExtras: true,
      });
      expect(short.exitCode, reportText(short, { color: false })).toBe(0);
      limited = 0;
      const long = await runContract({ baseUrl: await makeLimiter("120", 100), maxRequests: 120 });
      expect(long.exitCode).toBe(2);
      expect(long.error?.message).toMatch(
        /rate-limited the run \(429, Retry-After 120\); stopped to avoid an IP ban/,
      );
    } finally {
      await reference.close();
    }
  });

  it("usage errors: exit 2 before any request", async () => {
    expect((await runContract({ baseUrl: "ftp://example.org" })).error?.message).toMatch(/http\(s\) URL/);
    expect((await runContract({ baseUrl: "http://127.0.0.1:1", apiSecret: "s" })).error?.message).toMatch(
      /--api-secret needs --api-key/,
    );
    const off = await runContract({
      endpoint: {
        resourceType: "Endpoint",
        status: "off",
        connectionType: { code: "x" },
        payloadType: [{ text: "x" }],
        address: "http://127.0.0.1:1",
      },
    });
    expect(off.exitCode).toBe(2);
    expect(off.error?.message).toMatch(/status "off"/);
    expect(off.stats.requests).toBe(0);
  });
});

describe("interrupts", () => {
  it("cancels every order it created when interrupted mid-run", async () => {
    const server = await startReferenceServer();
    try {
      const controller = new AbortController();
      let orders = 0;
      const result = await runContract({
        baseUrl: server.url,
        apiKey: server.credentials.apiKey,
        apiSecret: server.credentials.apiSecret,
        allowTrading: true,
        signal: controller.signal,
        onExchange: (e) => {
          if (e.op.operationId === "new_order" && e.response?.status === 200) orders += 1;
          if (orders === 3) controller.abort();
        },
      });
      expect(result.exitCode).toBe(130);
      expect(result.error?.kind).toBe("interrupted");
      expect(result.cleanup.leftOpen).toEqual([]);
      // Ask the server directly: no open order is left on the account.
      const query = `timestamp=${Date.now()}`;
      const response = await fetch(
        `${server.url}/api/v3/openOrders?${query}&signature=${hmacHex(server.credentials.apiSecret, query)}`,
        {
          headers: { "X-MBX-APIKEY": server.credentials.apiKey },
        },
      );
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
