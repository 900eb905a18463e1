// The signed order load of the ceiling bench and of bench:builds: two accounts trading crossing
// pairs at one price inside the spread, and the server's CPU time read from /proc.
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";

export const ACCOUNTS = [
  { id: "a", apiKey: "bench-key-a", apiSecret: "bench-secret-a" },
  { id: "b", apiKey: "bench-key-b", apiSecret: "bench-secret-b" },
];

/** Rate limits that never throttle a bench (see the README's "Rate limits"). */
export const UNLIMITED = { requestWeightPerMinute: 1e12, ordersPer10s: 1e12, ordersPerDay: 1e12 };

/** A process's CPU time (user + system, all threads) in ms, from /proc/PID/stat. */
export function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/**
 * Two crossing pairs at one price, by account id and side: a BUY of account a and a SELL of
 * account b, then the other way round, so that neither account's balance drains however long the
 * run. The engine loop (engine-loop.bench.ts) sends the same orders straight to the engine.
 */
export const CROSSING_PAIRS = [
  ["a", "BUY"],
  ["b", "SELL"],
  ["b", "BUY"],
  ["a", "SELL"],
] as const;

/** CROSSING_PAIRS as signed requests (signed over the form body) at `price`. */
export function orderCycle(price: string) {
  return CROSSING_PAIRS.map(([id, side]) => {
    const { apiKey, apiSecret } = ACCOUNTS.find((account) => account.id === id) as (typeof ACCOUNTS)[0];
    const form =
      `symbol=BTCUSDT&side=${side}&type=LIMIT&timeInForce=GTC&quantity=0.001` +
      `&price=${price}&recvWindow=60000&timestamp=${Date.now()}`;
    const body = `${form}&signature=${createHmac("sha256", apiSecret).update(form).digest("hex")}`;
    return {
      method: "POST",
      path: "/api/v3/order",
      body,
      headers: { "X-MBX-APIKEY": apiKey, "Content-Type": "application/x-www-form-urlencoded" },
    };
  });
}

/** A price in the middle of BTCUSDT's spread on the server at `base`, to two decimals. */
export async function insideSpread(base: string): Promise<string> {
  const ticker = (await (await fetch(`${base}/api/v3/ticker/bookTicker?symbol=BTCUSDT`)).json()) as {
    bidPrice: string;
    askPrice: string;
  };
  return (Math.round(((Number(ticker.bidPrice) + Number(ticker.askPrice)) / 2) * 100) / 100).toFixed(2);
}

/** Cancels the bench accounts' open BTCUSDT orders on the server at `base` (none open: nothing to do). */
export async function cancelOpenOrders(base: string): Promise<void> {
  for (const { apiKey, apiSecret } of ACCOUNTS) {
    const time = ((await (await fetch(`${base}/api/v3/time`)).json()) as { serverTime: number }).serverTime;
    const query = `symbol=BTCUSDT&timestamp=${time}`;
    const signature = createHmac("sha256", apiSecret).update(query).digest("hex");
    // -2011 when nothing is open: that is fine.
    await fetch(`${base}/api/v3/openOrders?${query}&signature=${signature}`, {
      method: "DELETE",
      headers: { "X-MBX-APIKEY": apiKey },
    });
  }
}
