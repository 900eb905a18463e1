// Per-request cost of the client against raw fetch, side by side in one run.
//
// 1. Loopback: a node:http server in this process answers fixed JSON. Contenders are compared in
//    pairs: each round sends a batch with one, then a batch with the other (alternating which goes
//    first), and the ratio is taken per round, so that load from other processes hits both sides
//    alike. The table shows medians over the rounds.
// 2. In memory: the same calls with a fetch that answers at once, without a socket, to show the
//    client's own CPU cost per call without the noise of the network stack.
//
// The raw signed side builds the query string by hand and signs it with WebCrypto (key imported
// once), exactly as the client does; a raw side signing with node:crypto is shown for reference.
// Run: npm run bench (in packages/client). BENCH_ROUNDS and BENCH_REQUESTS change the sizes.
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { createSpotClient } from "../src/index.js";
import { measureBundle } from "../test/support/bundle-size.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 250);
const API_KEY = "bench-key";
const SECRET = "bench-secret";

const bodies: Record<string, string> = {
  "/api/v3/depth": JSON.stringify({
    lastUpdateId: 1027024,
    bids: [["4.00000000", "431.00000000"]],
    asks: [["4.00000200", "12.00000000"]],
  }),
  "/api/v3/order": JSON.stringify({
    symbol: "BTCUSDT",
    orderId: 28,
    orderListId: -1,
    clientOrderId: "6gCrw2kRUAF9CvJDGP16IP",
    transactTime: 1507725176595,
  }),
};
const headers = { "Content-Type": "application/json", "X-MBX-USED-WEIGHT-1M": "1" };
const server = createServer((req, res) => {
  const path = (req.url ?? "").split("?")[0]!;
  req.resume();
  req.on("end", () => {
    res.writeHead(200, headers);
    res.end(bodies[path] ?? "{}");
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** A fetch that answers at once, as the server would. */
const inMemory = async (input: string | Request): Promise<Response> => {
  const path = new URL(typeof input === "string" ? input : input.url).pathname;
  return new Response(bodies[path] ?? "{}", { headers });
};

const encoder = new TextEncoder();
const key = await crypto.subtle.importKey(
  "raw",
  encoder.encode(SECRET),
  { name: "HMAC", hash: "SHA-256" },
  false,
  ["sign"],
);
async function webCryptoHex(payload: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
}
const orderQuery = () =>
  `symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=42000&recvWindow=5000&timestamp=${Date.now()}`;
const order = {
  symbol: "BTCUSDT",
  side: "BUY",
  type: "LIMIT",
  timeInForce: "GTC",
  quantity: 0.001,
  price: 42000,
} as const;

type Fetch = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** The contenders, sending through `send`. */
function contenders(send: Fetch) {
  const client = createSpotClient({
    baseUrl: base,
    apiKey: API_KEY,
    apiSecret: SECRET,
    recvWindow: 5000,
    fetch: send,
  });
  const post = (query: string, signature: string) =>
    send(`${base}/api/v3/order?${query}&signature=${signature}`, {
      method: "POST",
      headers: { "X-MBX-APIKEY": API_KEY },
    });
  return {
    "order_book · raw fetch": async () => {
      await (await send(`${base}/api/v3/depth?symbol=BTCUSDT&limit=5`)).json();
    },
    "order_book · client": async () => {
      await client.order_book({ symbol: "BTCUSDT", limit: 5 });
    },
    "new_order · raw fetch + WebCrypto HMAC": async () => {
      const query = orderQuery();
      await (await post(query, await webCryptoHex(query))).json();
    },
    "new_order · raw fetch + node:crypto HMAC": async () => {
      const query = orderQuery();
      await (await post(query, createHmac("sha256", SECRET).update(query).digest("hex"))).json();
    },
    "new_order · client": async () => {
      await client.new_order(order);
    },
  };
}
type Name = keyof ReturnType<typeof contenders>;

interface Pair {
  baseline: Name;
  contender: Name;
  target?: number;
}
const pairs: Pair[] = [
  { baseline: "order_book · raw fetch", contender: "order_book · client", target: 1.1 },
  { baseline: "new_order · raw fetch + WebCrypto HMAC", contender: "new_order · client", target: 1.25 },
  {
    baseline: "new_order · raw fetch + WebCrypto HMAC",
    contender: "new_order · raw fetch + node:crypto HMAC",
  },
];

async function batch(run: () => Promise<void>, requests: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < requests; i++) await run();
  return ((performance.now() - start) * 1000) / requests;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/** Median µs per request of every contender, and the median per-round ratio of every pair. */
async function measure(send: Fetch, rounds: number, requests: number) {
  const runs = contenders(send);
  const times = new Map<Name, number[]>();
  const ratios = pairs.map(() => [] as number[]);
  for (const run of Object.values(runs)) await batch(run, requests); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [i, { baseline, contender }] of pairs.entries()) {
      const order: Name[] = r % 2 === 0 ? [baseline, contender] : [contender, baseline];
      const measured = new Map<Name, number>();
      for (const name of order) measured.set(name, await batch(runs[name], requests));
      for (const [name, value] of measured) times.set(name, [...(times.get(name) ?? []), value]);
      ratios[i]!.push(measured.get(contender)! / measured.get(baseline)!);
    }
  }
  return {
    us: (name: Name) => median(times.get(name)!),
    ratio: (i: number) => median(ratios[i]!),
  };
}

const loopback = await measure((input, init) => fetch(input, init), ROUNDS, REQUESTS);
const memory = await measure(inMemory, 10, 2000);
server.close();
const size = await measureBundle(fileURLToPath(new URL("../src/index.ts", import.meta.url)));

const names = [...new Set(pairs.flatMap((p) => [p.baseline, p.contender]))];
const versus = (name: Name) => {
  const i = pairs.findIndex((p) => p.contender === name);
  if (i === -1) return "1.00×";
  const { target } = pairs[i]!;
  const value = loopback.ratio(i);
  const verdict =
    target === undefined ? "" : ` (target ≤ ${target.toFixed(2)}: ${value <= target ? "met" : "missed"})`;
  return `${value.toFixed(2)}×${verdict}`;
};
const [load] = loadavg();
console.log(
  `Node ${process.version}, load average ${load!.toFixed(2)}; loopback: ${ROUNDS} rounds × ${REQUESTS} requests per contender and pair, medians\n`,
);
console.log("| request | loopback µs | vs raw fetch (same round) | in-memory fetch µs |");
console.log("|---|---:|---:|---:|");
for (const name of names) {
  console.log(
    `| ${name} | ${loopback.us(name).toFixed(1)} | ${versus(name)} | ${memory.us(name).toFixed(1)} |`,
  );
}
const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
console.log(
  `\nDefault import (src/index.ts with its dependencies, esbuild, minified ESM, code split): ${kB(size.minified)}, gzipped ${kB(size.gzipped)} (budget 10 kB); loaded on first use: ${kB(size.lazyMinified)}, gzipped ${kB(size.lazyGzipped)}`,
);
