// Hostile servers on 127.0.0.1: an endless body, a 429 loop with long Retry-After, a hang in the
// start-up probe, and a server that echoes the credentials and the signature back.
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../src/http/transport.js";
import { reportText } from "../src/index.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import { runContract } from "./support/run.js";
import { startReferenceServer } from "./support/server.js";

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const servers: Server[] = [];

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
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

describe("hostile servers", () => {
  it("an endless body: read up to the cap, then the connection is dropped (exit 2, not a crash)", async () => {
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const url = await listen((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      };
      res.on("drain", pump);
      pump();
    });
    // The body cap stops the read, not a clock: the request may take as long as a loaded machine needs.
    const result = await runContract({ baseUrl: url });
    expect(result.exitCode).toBe(2);
    expect(result.error?.message).toContain(
      `body longer than ${MAX_BODY_BYTES} bytes; reading stopped there`,
    );
    // The cap plus what the socket buffers held when the tester hung up; never gigabytes.
    expect(sent).toBeLessThan(MAX_BODY_BYTES + 16 * 1024 * 1024);
  });

  it("a 429 loop with Retry-After 15: --max-time ends the run (exit 2, kind deadline)", async () => {
    let requests = 0;
    const url = await listen((_req, res) => {
      requests += 1;
      res.writeHead(429, { "Content-Type": "application/json", "Retry-After": "15" });
      res.end('{"code":-1003,"msg":"Too many requests."}');
    });
    const result = await runContract({ baseUrl: url, maxTimeMs: 1500 });
    expect(result.exitCode).toBe(2);
    expect(result.error).toEqual({
      kind: "deadline",
      message: "--max-time 1.5 s reached; the results are partial",
      // The 429s came during the start-up probe: no check had begun.
      during: "start-up",
    });
    expect(requests).toBeLessThan(5);
  });

  it("a hang during the start-up probe (headers sent, body never ends): one line, exit 3", async () => {
    const url = await listen((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write('{"serverTime":');
      // ... and the body never ends.
    });
    const run = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, "--base-url", url, "--timeout", "200", "--json"], {
        env: { ...process.env, NO_COLOR: "1", MARKETAPI_API_KEY: "", MARKETAPI_API_SECRET: "" },
      });
      let stderr = "";
      let stdout = "";
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      child.on("close", (code) => resolve({ code, stderr, stdout }));
    });
    expect(run.code).toBe(3);
    const errorLines = run.stderr.split("\n").filter((line) => line.startsWith("marketapi-contract:"));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(/^marketapi-contract: connection error: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(JSON.parse(run.stdout).error.kind).toBe("connection");
  });

  it("credentials and signatures echoed in headers and bodies are masked in every report", async () => {
    const reference = await startReferenceServer();
    const echo = await startFaultProxy(reference.url, {
      name: "echo",
      description: "echoes the key, the query string and the body back",
      caughtBy: [],
      response: (req, res) => ({
        ...res,
        // Turns every answer into a failure too, so that exchanges are printed.
        status: res.status === 200 ? 201 : res.status,
        headers: {
          ...res.headers,
          "x-echo-key": req.headers["x-mbx-apikey"] ?? "",
          "x-echo-query": req.query.toString(),
        },
        body: `${res.body.slice(0, 50)} ${req.query.toString()} ${req.body}`,
      }),
    });
    try {
      const { apiKey, apiSecret } = reference.credentials;
      const signatures = new Set<string>();
      const result = await runContract({
        baseUrl: echo.url,
        apiKey,
        apiSecret,
        allowTrading: true,
        maxRequests: 150,
        onExchange: (exchange) => {
          const query = exchange.request.url.split("?")[1] ?? "";
          for (const part of [query, exchange.request.body ?? ""]) {
            const signature = new URLSearchParams(part).get("signature");
            if (signature) signatures.add(signature);
          }
        },
      });
      expect(result.summary.failed).toBeGreaterThan(0);
      expect(signatures.size).toBeGreaterThan(0);
      const printed = `${JSON.stringify(result)}\n${reportText(result, { color: false })}`;
      expect(printed).toContain("x-echo-key");
      for (const secret of [apiKey, apiSecret, ...signatures])
        expect(printed.includes(secret), secret).toBe(false);
    } finally {
      await echo.close();
      await reference.close();
    }
  });
});
