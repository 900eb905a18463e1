// A server you can watch: the request log, what a restart restored, a shutdown that speaks of a
// state database only when there is one, and a port in use in one line.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_CREDENTIALS } from "../src/index.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { send, sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-watch-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const demo = { apiKey: DEMO_CREDENTIALS.apiKey, apiSecret: DEMO_CREDENTIALS.apiSecret };
const restingSell = "symbol=BTCUSDT&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.01&price=30000";
const crossingBuy = "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.004&price=30000";

async function stop(run: ReturnType<typeof runCli>): Promise<void> {
  run.child.kill("SIGTERM");
  expect(await run.exited).toBe(0);
}

describe("--log requests", () => {
  it("prints method, path, status, error code and ms per request, and no secret", async () => {
    const run = runCli(["--port", "0", "--empty", "--log", "requests"]);
    const url = await baseUrlOf(run);
    await send(url, { path: "/api/v3/ping" });
    await send(url, { path: "/api/v3/depth", query: "symbol=NOPE" });
    const placed = await sendSigned(url, {
      ...demo,
      method: "POST",
      path: "/api/v3/order",
      query: restingSell,
    });
    expect(placed.status).toBe(200);
    const formBody = await sendSigned(url, {
      ...demo,
      method: "POST",
      path: "/api/v3/order",
      form: crossingBuy,
    });
    expect(formBody.status).toBe(200);
    await sendSigned(url, { ...demo, apiSecret: "wrong", method: "GET", path: "/api/v3/openOrders" });
    await stop(run);

    const lines = run.stdout().split("\n");
    const log = lines.filter((line) => /^(GET|POST|DELETE|PUT) /.test(line));
    expect(log).toHaveLength(5);
    expect(log[0]).toMatch(/^GET \/api\/v3\/ping 200 \d+\.\dms$/);
    expect(log[1]).toMatch(/^GET \/api\/v3\/depth 400 -1121 \d+\.\dms$/);
    expect(log[2]).toMatch(/^POST \/api\/v3\/order 200 \d+\.\dms$/);
    expect(log[3]).toMatch(/^POST \/api\/v3\/order 200 \d+\.\dms$/);
    expect(log[4]).toMatch(/^GET \/api\/v3\/openOrders 400 -1022 \d+\.\dms$/);
    const output = run.stdout() + run.stderr();
    expect(output).not.toMatch(/signature/);
    expect(output).not.toContain("timestamp=");
    // The banner shows the demo credentials; the log lines never carry a key or secret.
    for (const line of log) {
      expect(line).not.toContain(demo.apiKey);
      expect(line).not.toContain(demo.apiSecret);
    }
  });

  it("is off by default, and --log takes only `requests`", async () => {
    const run = runCli(["--port", "0", "--empty"]);
    const url = await baseUrlOf(run);
    await send(url, { path: "/api/v3/ping" });
    await stop(run);
    expect(run.stdout()).not.toContain("/api/v3/ping");
    const bad = runCli(["--log", "everything"]);
    expect(await bad.exited).toBe(2);
    expect(bad.stderr()).toContain('--log takes "requests", got "everything"');
  });
});

describe("start and stop messages", () => {
  it("says what a restart with --state restored; without --state, shutdown names no database", async () => {
    const statePath = join(folder, "restored.db");
    const first = runCli(["--port", "0", "--empty", "--state", statePath]);
    const url = await baseUrlOf(first);
    expect(first.stdout()).toContain("restored         nothing: a new state database");
    await sendSigned(url, { ...demo, method: "POST", path: "/api/v3/order", query: restingSell });
    await sendSigned(url, { ...demo, method: "POST", path: "/api/v3/order", query: crossingBuy });
    await stop(first);
    expect(first.stdout()).toContain(
      "SIGTERM: shutting down (finishing requests, closing the state database)",
    );

    const again = runCli(["--port", "0", "--empty", "--state", statePath]);
    await baseUrlOf(again);
    expect(again.stdout()).toContain("restored         1 accounts, 1 open orders, 1 trades");
    await stop(again);

    const inMemory = runCli(["--port", "0", "--empty"]);
    await baseUrlOf(inMemory);
    await stop(inMemory);
    expect(inMemory.stdout()).toContain("SIGTERM: shutting down (finishing requests)");
    expect(inMemory.stdout() + inMemory.stderr()).not.toMatch(/state|database|restored/i);
  });

  it("exits 3 with one line when the port is in use", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const run = runCli(["--port", String(port)]);
      expect(await run.exited).toBe(3);
      expect(run.stderr()).toBe(
        `marketapi-server: port ${port} on 127.0.0.1 is in use (another server?); stop it or choose another with --port\n`,
      );
    } finally {
      holder.close();
    }
  });
});
