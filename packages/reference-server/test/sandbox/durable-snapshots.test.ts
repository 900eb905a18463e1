// Snapshots, restore and reset of a server with a state database, over HTTP on 127.0.0.1: a
// snapshot is a backup of the file kept beside it; a restore or a reset replaces the file, so the
// API shows the state brought back, and so does the server started again on the file; a snapshot
// outlives the server that took it. Each admin answer is checked by @marketapi/validators/sandbox.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateResponse } from "@marketapi/validators/sandbox";
import { afterAll, describe, expect, it } from "vitest";
import { stateFaults } from "../../src/engine/invariants.js";
import { DEMO_CREDENTIALS, type RunningServer, StateFileError, startServer } from "../../src/index.js";
import { loadDriver } from "../../src/store/driver.js";
import { send, sendSigned } from "../support/http.js";

const TOKEN = "admin-token-for-durable-snapshots";
const T0 = 1_700_000_000_000;
const folder = mkdtempSync(join(tmpdir(), "sandbox-durable-"));
const statePath = join(folder, "state.db");
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const start = (logger?: { info(m: string): void; warn(m: string): void; error(m: string): void }) =>
  startServer({
    ...(logger ? { logger } : {}),
    port: 0,
    seed: 4,
    now: () => T0,
    clock: { rate: 0 },
    market: true,
    admin: { token: TOKEN },
    statePath,
  });

async function admin(
  server: RunningServer,
  operationId: string,
  method: string,
  path: string,
  form?: string,
) {
  const answer = await fetch(`${server.admin?.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      ...(form === undefined ? {} : { "Content-Type": "application/x-www-form-urlencoded" }),
    },
    body: form,
  });
  const text = await answer.text();
  const body = text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>);
  const check = validateResponse(operationId, answer.status, body);
  expect(check.valid, `${operationId} ${answer.status} ${text}`).toBe(true);
  return { status: answer.status, body: body ?? {} };
}

/** What a client sees: the clock, the demo account, its orders, the market's trades. */
async function view(server: RunningServer) {
  const { serverTime } = (await send(server.url, { path: "/api/v3/time" })).json as { serverTime: number };
  const signed = (path: string, query?: string) =>
    sendSigned(server.url, { ...DEMO_CREDENTIALS, method: "GET", path, timestamp: serverTime, query });
  const account = (await signed("/api/v3/account")).json as { balances: unknown[] };
  const orders = (await signed("/api/v3/allOrders", "symbol=BTCUSDT")).json as { orderId: number }[];
  const trades = (await send(server.url, { path: "/api/v3/trades", query: "symbol=BTCUSDT&limit=1000" }))
    .json as { id: number }[];
  return {
    serverTime,
    balances: account.balances,
    orders: orders.map((o) => o.orderId),
    trades: trades.map((t) => t.id),
  };
}

async function buy(server: RunningServer, price: string) {
  const { serverTime } = (await send(server.url, { path: "/api/v3/time" })).json as { serverTime: number };
  const answer = await sendSigned(server.url, {
    ...DEMO_CREDENTIALS,
    method: "POST",
    path: "/api/v3/order",
    timestamp: serverTime,
    form: `symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.01&price=${price}`,
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return (answer.json as { orderId: number }).orderId;
}

describe("snapshots, restore and reset with --state", () => {
  it("a snapshot is a file; restore and reset replace the state file, and a restart goes on from them", async () => {
    let server = await start();
    try {
      const atStart = await view(server);
      const kept = await buy(server, "1000");
      await admin(server, "sandbox_advance_clock", "POST", "/clock/advance", "ms=10000");
      const taken = await admin(server, "sandbox_take_snapshot", "POST", "/snapshots");
      expect(taken.status).toBe(201);
      const snapshot = taken.body as { id: string; takenAt: number };
      expect(readdirSync(`${statePath}.snapshots`)).toContain(`${snapshot.id}-${snapshot.takenAt}.db`);
      const atSnapshot = await view(server);
      expect(atSnapshot.orders).toContain(kept);
      expect(atSnapshot.trades.length).toBeGreaterThan(atStart.trades.length);

      // Changes after the snapshot: time, an order, an account added here.
      await admin(server, "sandbox_advance_clock", "POST", "/clock/advance", "ms=20000");
      const dropped = await buy(server, "1001");
      await admin(
        server,
        "sandbox_add_account",
        "POST",
        "/accounts",
        "accountId=carol&apiKey=carol-key&apiSecret=carol-secret",
      );

      const restored = await admin(
        server,
        "sandbox_restore_snapshot",
        "POST",
        `/snapshots/${snapshot.id}/restore`,
      );
      expect(restored.body).toEqual({ id: snapshot.id, time: snapshot.takenAt });
      const afterRestore = await view(server);
      expect(afterRestore).toEqual(atSnapshot);
      expect(afterRestore.orders).not.toContain(dropped);
      expect((await admin(server, "sandbox_account", "GET", "/accounts/carol")).status).toBe(404);
      expect(stateFaults(server.exchange.internalState())).toEqual([]);
      // Orders go on from the restored state, and the market with it.
      const next = await buy(server, "1002");
      // The snapshot's order ids are given again (the market placed orders after it too).
      expect(next).toBeLessThan(dropped);
      await server.close();

      server = await start();
      const status = await admin(server, "sandbox_status", "GET", "/status");
      expect(status.body.snapshots).toEqual([snapshot]);
      const restarted = await view(server);
      expect(restarted.orders).toEqual([...atSnapshot.orders, next]);
      expect(restarted.serverTime).toBe(snapshot.takenAt);

      // Reset: back to the file as this run started it (with `next`), whatever came after.
      await buy(server, "1003");
      await admin(server, "sandbox_advance_clock", "POST", "/clock/advance", "ms=30000");
      const reset = await admin(server, "sandbox_reset", "POST", "/reset");
      expect(reset.body).toEqual({ time: snapshot.takenAt });
      expect(await view(server)).toEqual(restarted);
      await server.close();

      server = await start();
      expect(await view(server)).toEqual(restarted);
      // The snapshot of the first run still brings its state back; then it is deleted.
      await admin(server, "sandbox_restore_snapshot", "POST", `/snapshots/${snapshot.id}/restore`);
      expect(await view(server)).toEqual(atSnapshot);
      expect(
        (await admin(server, "sandbox_delete_snapshot", "DELETE", `/snapshots/${snapshot.id}`)).status,
      ).toBe(204);
      expect(existsSync(join(`${statePath}.snapshots`, `${snapshot.id}-${snapshot.takenAt}.db`))).toBe(false);
      expect(
        (await admin(server, "sandbox_restore_snapshot", "POST", `/snapshots/${snapshot.id}/restore`)).status,
      ).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("a restore's copy left by a killed server is removed at the next start, the snapshots kept; a saved sandbox it cannot read refuses the file, left as it was", async () => {
    // What a server killed midway through a restore leaves: its checked copy beside the file.
    const leftover = `${statePath}.restoring-999999`;
    writeFileSync(leftover, "a copy being restored");
    const kept = readdirSync(`${statePath}.snapshots`).sort();
    expect(kept).toContain("initial.db");
    const warnings: string[] = [];
    const server = await start({
      info: () => undefined,
      warn: (m) => warnings.push(m),
      error: () => undefined,
    });
    await server.close();
    expect(existsSync(leftover)).toBe(false);
    expect(warnings.join("\n")).toContain("state.db.restoring-999999");
    // The snapshots folder is not a leftover (initial.db is taken anew at each start).
    expect(readdirSync(`${statePath}.snapshots`).sort()).toEqual(kept);

    const db = new (loadDriver())(statePath);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'sandbox'").run('{"version": 1, "clock": {');
    db.close();
    const sha = () => createHash("sha256").update(readFileSync(statePath)).digest("hex");
    const before = sha();
    const refusal = await start().then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StateFileError);
    expect((refusal as Error).message).toContain(statePath);
    expect((refusal as Error).message).toContain(
      'its sandbox state (meta "sandbox") is not one this server reads',
    );
    expect(sha()).toBe(before);
    expect(existsSync(`${statePath}-wal`)).toBe(false);
  });
});
