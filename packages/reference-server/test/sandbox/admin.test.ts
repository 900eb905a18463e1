// The admin surface over HTTP: its own port on 127.0.0.1, a bearer token of its own (a trading key
// is refused), every operation of the sandbox document's admin section called and each answer
// checked by @marketapi/validators/sandbox, parameters validated by the document, and what each
// operation does seen through the API: a new account trades, balances change, snapshots bring the
// exchange and the clock back, reset returns to the start.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateResponse } from "@marketapi/validators/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/index.js";
import { describeAdmin } from "../../src/sandbox/admin-server.js";
import { baseUrlOf, runCli } from "../support/cli.js";
import { send, sendSigned } from "../support/http.js";

const TOKEN = "admin-token-for-the-tests";
let server: RunningServer;
const called = new Set<string>();
const operations = describeAdmin();

beforeAll(async () => {
  server = await startServer({ port: 0, seed: 9, clock: { rate: 0 }, market: true, admin: { token: TOKEN } });
});
afterAll(() => server.close());

interface AdminAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** Calls an admin operation by its id (method and path from the document), checking the answer against it. */
async function admin(
  operationId: string,
  options: { path?: Record<string, string>; query?: string; form?: string; token?: string | null } = {},
): Promise<AdminAnswer> {
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`no admin operation ${operationId}`);
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(options.path?.[name] ?? ""),
  );
  const origin = new URL(server.admin?.url ?? "").origin;
  const token = options.token === undefined ? TOKEN : options.token;
  const answer = await fetch(`${origin}${path}${options.query ? `?${options.query}` : ""}`, {
    method: operation.method,
    headers: {
      ...(token === null ? {} : { Authorization: `Bearer ${token}` }),
      ...(options.form === undefined ? {} : { "Content-Type": "application/x-www-form-urlencoded" }),
    },
    body: options.form,
  });
  const text = await answer.text();
  const body = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
  const check = validateResponse(operationId, answer.status, answer.status === 204 ? undefined : body);
  expect(check.valid, `${operationId} ${answer.status} ${text}: ${JSON.stringify(check)}`).toBe(true);
  called.add(operationId);
  return { status: answer.status, body };
}

const time = async () => (await admin("sandbox_status")).body.time as number;

describe("where the admin surface is and who may use it", () => {
  it("listens on 127.0.0.1, on a port of its own; the API's port does not serve it", async () => {
    expect(server.admin?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin\/v1$/);
    expect(new URL(server.admin?.url ?? "").port).not.toBe(String(new URL(server.url).port));
    const onApiPort = await send(server.url, {
      path: "/admin/v1/status",
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(onApiPort.status).toBe(404);
  });

  it.each([
    { how: "no Authorization header", token: null },
    { how: "a wrong token", token: "admin-token-for-the-testz" },
    { how: "the demo account's API key", token: "marketapi-demo-api-key" },
    { how: "the demo account's secret", token: "marketapi-demo-api-secret" },
  ])("refuses $how: 401 with WWW-Authenticate", async ({ token }) => {
    const answer = await admin("sandbox_status", { token });
    expect(answer.status).toBe(401);
    const raw = await fetch(`${server.admin?.url}/status`, {
      headers: { "X-MBX-APIKEY": "marketapi-demo-api-key" },
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("an unknown path is 404, a known path with another method 405 with Allow", async () => {
    const headers = { Authorization: `Bearer ${TOKEN}` };
    expect((await fetch(`${server.admin?.url}/nothing`, { headers })).status).toBe(404);
    const wrong = await fetch(`${server.admin?.url}/clock/advance`, { headers });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
  });
});

describe("the operations", () => {
  it("advance the clock by ms, by a duration or to a time; never back; parameters checked by the document", async () => {
    const start = await time();
    expect((await admin("sandbox_advance_clock", { form: "ms=1500" })).body.time).toBe(start + 1500);
    expect((await admin("sandbox_advance_clock", { query: "by=2m" })).body.time).toBe(start + 121_500);
    expect((await admin("sandbox_advance_clock", { form: `to=${start + 200_000}` })).body.time).toBe(
      start + 200_000,
    );
    const back = await admin("sandbox_advance_clock", { form: `to=${start}` });
    expect(back.status).toBe(409);
    expect(back.body.error).toMatch(/cannot go back/);
    for (const [form, fault] of [
      ["ms=-1", "/ms"],
      ["by=1y", "/by"],
      ["ms=1&by=1s", "/by cannot be given together with /ms"],
      ["", "one of ms, by or to"],
      ["ms=1&speed=2", "/speed"],
    ] as const) {
      const refused = await admin("sandbox_advance_clock", { form });
      expect(refused.status, form).toBe(400);
      expect(refused.body.error, form).toContain(fault);
    }
  });

  it("sets the clock's rate (0 pauses it), and starts and stops the market", async () => {
    expect((await admin("sandbox_set_clock_rate", { form: "rate=30" })).body.clock).toEqual({
      rate: 30,
      paused: false,
    });
    expect((await admin("sandbox_set_clock_rate", { query: "rate=0" })).body.clock).toEqual({
      rate: 0,
      paused: true,
    });
    expect((await admin("sandbox_set_clock_rate", { form: "rate=fast" })).status).toBe(400);
    const stopped = await admin("sandbox_stop_market");
    expect((stopped.body.market as { running: boolean }).running).toBe(false);
    const started = await admin("sandbox_start_market");
    expect((started.body.market as { running: boolean }).running).toBe(true);
  });

  it("adds an account whose key trades through the API; deposits; sets a balance; refuses what is wrong", async () => {
    const added = await admin("sandbox_add_account", {
      form: `accountId=carol&apiKey=carol-key&apiSecret=carol-secret&balances=${encodeURIComponent('{"USDT":"1000"}')}`,
    });
    expect(added.status).toBe(201);
    expect(added.body.balances).toEqual([{ asset: "USDT", free: "1000.00000000", locked: "0.00000000" }]);
    const timestamp = await time();
    const placed = await sendSigned(server.url, {
      apiKey: "carol-key",
      apiSecret: "carol-secret",
      method: "POST",
      path: "/api/v3/order",
      form: "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=50000.00",
      timestamp,
    });
    expect(placed.status, placed.text).toBe(200);
    const locked = await admin("sandbox_account", { path: { accountId: "carol" } });
    expect(locked.body.balances).toEqual([{ asset: "USDT", free: "500.00000000", locked: "500.00000000" }]);
    const deposited = await admin("sandbox_deposit", {
      path: { accountId: "carol" },
      form: "asset=BTC&amount=0.5",
    });
    expect(deposited.body.balances).toContainEqual({
      asset: "BTC",
      free: "0.50000000",
      locked: "0.00000000",
    });
    const set = await admin("sandbox_set_balance", {
      path: { accountId: "carol", asset: "USDT" },
      form: "free=20",
    });
    expect(set.body.balances).toContainEqual({ asset: "USDT", free: "20.00000000", locked: "500.00000000" });
    expect((await admin("sandbox_account", { path: { accountId: "nobody" } })).status).toBe(404);
    expect(
      (await admin("sandbox_deposit", { path: { accountId: "carol" }, form: "asset=BTC&amount=1.123456789" }))
        .status,
    ).toBe(400);
    expect(
      (await admin("sandbox_add_account", { form: "accountId=carol&apiKey=other-key&apiSecret=s" })).status,
    ).toBe(409);
    expect((await admin("sandbox_add_account", { form: "apiKey=carol-key&apiSecret=s" })).status).toBe(409);
    const participant = await admin("sandbox_add_account", {
      form: "accountId=sim-maker-1&apiKey=k1&apiSecret=s",
    });
    expect(participant.status).toBe(400);
  });

  it("snapshots bring back the exchange, the clock and the market; the same market follows each restore", async () => {
    const taken = await admin("sandbox_take_snapshot");
    expect(taken.status).toBe(201);
    const id = taken.body.id as string;
    const at = await time();
    const runFromSnapshot = async () => {
      await admin("sandbox_advance_clock", { form: "by=3m" });
      return (await send(server.url, { path: "/api/v3/trades", query: "symbol=BTCUSDT&limit=50" })).json;
    };
    const placed = await sendSigned(server.url, {
      ...server.demo,
      method: "POST",
      path: "/api/v3/order",
      form: "symbol=ETHUSDT&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.01&price=9000.00",
      timestamp: at,
    });
    expect(placed.status).toBe(200);
    const first = await runFromSnapshot();
    const restored = await admin("sandbox_restore_snapshot", { path: { snapshotId: id } });
    expect(restored.body).toEqual({ id, time: at });
    expect(await time()).toBe(at);
    const orderId = (placed.json as { orderId: number }).orderId;
    const gone = await sendSigned(server.url, {
      ...server.demo,
      method: "GET",
      path: "/api/v3/order",
      query: `symbol=ETHUSDT&orderId=${orderId}`,
      timestamp: at,
    });
    expect((gone.json as { code: number }).code).toBe(-2013);
    expect(await runFromSnapshot()).toEqual(first);
    expect((await admin("sandbox_restore_snapshot", { path: { snapshotId: "s999" } })).status).toBe(404);
    expect((await admin("sandbox_restore_snapshot", { path: { snapshotId: "bad id" } })).status).toBe(400);
    expect((await admin("sandbox_delete_snapshot", { path: { snapshotId: id } })).status).toBe(204);
    expect((await admin("sandbox_delete_snapshot", { path: { snapshotId: id } })).status).toBe(404);
  });

  it("reset brings back the start: the clock, the books, no added account", async () => {
    const reset = await admin("sandbox_reset");
    expect(reset.status).toBe(200);
    expect(await time()).toBe(reset.body.time);
    expect((await admin("sandbox_account", { path: { accountId: "carol" } })).status).toBe(404);
    const refused = await sendSigned(server.url, {
      apiKey: "carol-key",
      apiSecret: "carol-secret",
      method: "GET",
      path: "/api/v3/openOrders",
      query: "symbol=BTCUSDT",
      timestamp: await time(),
    });
    expect(refused.status).toBe(401);
  });

  it("every admin operation of the document was called (counted from the document)", () => {
    expect(operations.length).toBeGreaterThan(10);
    expect([...called].sort()).toEqual(operations.map((operation) => operation.operationId).sort());
  });
});

describe("what a server without a market refuses", () => {
  it("409 for the market without one", async () => {
    const plain = await startServer({ port: 0, admin: { token: TOKEN } });
    try {
      const answer = await fetch(`${plain.admin?.url}/market/start`, {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(answer.status).toBe(409);
      expect(((await answer.json()) as { error: string }).error).toMatch(/--market/);
    } finally {
      await plain.close();
    }
  });
});

describe("the command", () => {
  it("--admin-port prints where the admin surface is and its token; a port in use is exit 3 naming --admin-port", async () => {
    const run = runCli([
      "--port",
      "0",
      "--admin-port",
      "0",
      "--admin-token",
      TOKEN,
      "--market",
      "--clock-rate",
      "0",
    ]);
    try {
      await baseUrlOf(run);
      while (!/admin\s+http/.test(run.stdout()) && run.child.exitCode === null)
        await new Promise((r) => setTimeout(r, 50));
      const line = /admin\s+(http:\/\/127\.0\.0\.1:(\d+)\/admin\/v1) \(Authorization: Bearer (\S+)\)/.exec(
        run.stdout(),
      );
      expect(line?.[3], run.stdout()).toBe(TOKEN);
      expect(run.stdout()).toMatch(
        /market\s+random walk, volatility 0.02\/day, drift 0\/day, seed 1: running/,
      );
      const status = await fetch(`${line?.[1]}/status`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(status.status).toBe(200);
      const taken = await new Promise<number>((resolve) => {
        const holder = createServer().listen(0, "127.0.0.1", () =>
          resolve((holder.address() as { port: number }).port),
        );
        afterAll(() => holder.close());
      });
      const second = runCli(["--port", "0", "--admin-port", String(taken)]);
      expect(await second.exited).toBe(3);
      expect(second.stderr()).toMatch(/admin port \d+ on 127\.0\.0\.1 is in use .*--admin-port/);
      const short = runCli(["--port", "0", "--admin-port", "0", "--admin-token", "short"]);
      expect(await short.exited).toBe(2);
      expect(short.stderr()).toMatch(/admin\.token/);
    } finally {
      run.child.kill("SIGTERM");
      await run.exited;
    }
  });

  it("a faulty replay file is exit 1 naming its line and column; market options without --market are exit 2", async () => {
    const folder = mkdtempSync(join(tmpdir(), "sandbox-cli-"));
    try {
      const csv = join(folder, "prices.csv");
      writeFileSync(csv, "time,price\n1700000000000,100\n1700000060000,-5\n");
      const faulty = runCli(["--port", "0", "--market", "--market-replay", csv]);
      expect(await faulty.exited).toBe(1);
      expect(faulty.stderr()).toContain(
        `${csv} (line 3, column 15): expected a positive decimal price, found "-5"`,
      );
      const lonely = runCli(["--port", "0", "--market-volatility", "0.05"]);
      expect(await lonely.exited).toBe(2);
      expect(lonely.stderr()).toMatch(/--market-volatility needs --market/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
