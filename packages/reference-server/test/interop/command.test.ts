// The six clients (and the older @binance/connector) against the `marketapi-server` command run as a real process (the package's bin
// over the built dist/, as `npx marketapi-server` runs it): public data, the date_time times, an
// order placed, found and cancelled, and an error in the client's own terms.
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binanceClient } from "./clients/binance.js";
import { binanceApiNodeClient } from "./clients/binance-api-node.js";
import { binanceSpotClient } from "./clients/binance-spot.js";
import { ccxtClient } from "./clients/ccxt.js";
import { connectorClient } from "./clients/connector.js";
import { connectorTypescriptClient } from "./clients/connector-typescript.js";
import { nodeBinanceApiClient } from "./clients/node-binance-api.js";
import { guardLoopback, type InteropClient, type Target } from "./suite.js";

const BIN = fileURLToPath(new URL("../../bin/marketapi-server.js", import.meta.url));
const CLIENTS: InteropClient[] = [
  ccxtClient,
  binanceSpotClient,
  connectorTypescriptClient,
  binanceClient,
  binanceApiNodeClient,
  nodeBinanceApiClient,
  connectorClient,
];

let child: ChildProcess;
let target: Target;

/** Starts the command on a free port and reads its banner (base URL, demo key and secret). */
async function startCommand(): Promise<Target> {
  child = spawn(process.execPath, [BIN, "--port", "0", "--seed", "3"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  // Read as it arrives: the banner is complete when its three lines are.
  const banner = new Promise<Target>((resolve) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /base URL\s+(\S+)/.exec(out)?.[1];
      const apiKey = /demo API key\s+(\S+)/.exec(out)?.[1];
      const apiSecret = /demo API secret\s+(\S+)/.exec(out)?.[1];
      if (url && apiKey && apiSecret) resolve({ url, apiKey, apiSecret });
    });
  });
  return Promise.race([banner, exited.then(() => Promise.reject(new Error(`the command exited:\n${out}`)))]);
}

beforeAll(async () => {
  guardLoopback();
  target = await startCommand();
});
afterAll(async () => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGTERM");
  await exited;
});

describe.each(CLIENTS.map((c) => [c.name, c] as const))(
  "%s against the marketapi-server command",
  (_name, subject) => {
    it("reads market data, places, finds and cancels an order, and maps an error", async () => {
      const client = subject.create(target);
      await client.ping?.();
      expect((await client.depth!("BTCUSDT", 5)).bids).toBe(5);
      const now = Date.now();
      const times = await client.aggTradesByTime!("BTCUSDT", now - 86_400_000, now);
      expect(times.length).toBeGreaterThan(0);
      expect((await client.ticker!("24hr", ["ETHBTC", "BTCUSDT"])).sort()).toEqual(["BTCUSDT", "ETHBTC"]);
      const placed = await client.placeOrder!({
        symbol: "BTCUSDT",
        side: "BUY",
        type: "LIMIT",
        quantity: "0.01",
        price: "30000",
      });
      expect(placed.status).toBe("NEW");
      expect(await client.queryOrder!("BTCUSDT", { clientOrderId: placed.clientOrderId })).toMatchObject({
        orderId: placed.orderId,
      });
      expect(await client.cancelOrder!("BTCUSDT", { orderId: placed.orderId })).toMatchObject({
        status: "CANCELED",
      });
      const error = await client.queryOrder!("BTCUSDT", { orderId: "987654321" }).then(
        () => new Error("an unknown order was found"),
        (e: unknown) => e,
      );
      subject.expectError["unknown order queried (-2013)"](error);
    });
  },
);
