// Per-request cost of the client against raw fetch, side by side in one run.
//
// 1. Loopback: a node:http server in this process answers fixed JSON. In each round the contenders
//    of an operation take turns request by request (BENCH_REQUESTS turns); a contender's time in a
//    round is the median of its requests, and the ratios are taken within the round, so that load
//    from other processes hits all sides alike. The table shows medians over the rounds
//    (BENCH_ROUNDS).
// 2. In memory: the same calls with a fetch that answers at once, without a socket, to show the
//    client's own CPU cost per call without the noise of the network stack.
//
// Raw fetch sends the request the client sends: the same URL (new_order with a client order id,
// which the client sets so that a lost answer can be looked up, and the same signing with
// WebCrypto, key imported once) and the same headers (the API key where the operation needs it).
// The client runs with its default timeout (10 s), which gives fetch no abort signal while answers
// come in time; a raw side with the abort signal a timeout used to cost (one AbortController per
// 64 sends) is shown beside bare raw fetch. A raw side signing with node:crypto is shown for
// reference.
// The client is the built package (dist/, as users run it): run `npm run build` first.
// Run: npm run bench (in packages/client). BENCH_ROUNDS and BENCH_REQUESTS change the sizes.
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { measureBundle } from "../test/support/bundle-size.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 250);
const API_KEY = "bench-key";
const SECRET = "bench-secret";
const TIMEOUT_MS = 10_000;
const TARGET = 1.1;

// The built client, as users run it (`npm run bench` checks first that dist/ is not stale).
const dist = new URL("../dist/index.js", import.meta.url).href;
const { createSpotClient } = (await import(dist)) as typeof import("../src/index.js");

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
/** The query the client sends for `order` below: a client order id of its own, then the signing envelope. */
const orderQuery = () =>
  `symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=42000&newClientOrderId=${crypto.randomUUID().replaceAll("-", "")}&recvWindow=5000&timestamp=${Date.now()}`;
const order = {
  symbol: "BTCUSDT",
  side: "BUY",
  type: "LIMIT",
  timeInForce: "GTC",
  quantity: 0.001,
  price: 42000,
} as const;

/**
 * A timeout signal as the client gives each send: sends whose deadlines fall in one slice of time
 * (1/64 of the timeout), at most 64 of them, share one AbortController, aborted by one timer.
 */
let slot: { end: number; controller: AbortController; sends: number } | undefined;
function timeoutSignal(): AbortSignal {
  const width = Math.floor(TIMEOUT_MS / 64);
  const end = Math.ceil((Date.now() + TIMEOUT_MS) / width) * width;
  if (!slot || slot.end !== end || slot.sends >= 64) {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), end - Date.now()).unref();
    slot = { end, controller, sends: 0 };
  }
  slot.sends++;
  return slot.controller.signal;
}

type Fetch = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** The contenders of each operation, sending through `send`. */
function contenders(send: Fetch) {
  const client = createSpotClient({
    baseUrl: base,
    apiKey: API_KEY,
    apiSecret: SECRET,
    recvWindow: 5000,
    timeoutMs: TIMEOUT_MS,
    fetch: send,
  });
  const depth = `${base}/api/v3/depth?symbol=BTCUSDT&limit=5`;
  const post = (query: string, signature: string, signal?: AbortSignal) =>
    send(`${base}/api/v3/order?${query}&signature=${signature}`, {
      method: "POST",
      headers: { "x-mbx-apikey": API_KEY },
      ...(signal ? { signal } : {}),
    });
  return {
    order_book: {
      "raw fetch": async () => {
        await (await send(depth)).json();
      },
      "raw fetch + timeout signal": async () => {
        await (await send(depth, { signal: timeoutSignal() })).json();
      },
      client: async () => {
        await client.order_book({ symbol: "BTCUSDT", limit: 5 });
      },
    },
    new_order: {
      "raw fetch": async () => {
        const query = orderQuery();
        await (await post(query, await webCryptoHex(query))).json();
      },
      "raw fetch + timeout signal": async () => {
        const query = orderQuery();
        await (await post(query, await webCryptoHex(query), timeoutSignal())).json();
      },
      client: async () => {
        await client.new_order(order);
      },
      "raw fetch, node:crypto HMAC": async () => {
        const query = orderQuery();
        await (await post(query, createHmac("sha256", SECRET).update(query).digest("hex"))).json();
      },
    },
  };
}
type Contenders = ReturnType<typeof contenders>;
type BenchedOperation = keyof Contenders;

/** The ratios the table shows: the client against each raw side; node:crypto against WebCrypto. */
const comparisons = [
  { contender: "client", baseline: "raw fetch + timeout signal" },
  { contender: "client", baseline: "raw fetch" },
  { contender: "raw fetch, node:crypto HMAC", baseline: "raw fetch" },
] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

/**
 * One round of an operation's contenders: `requests` turns, each sending one request with every
 * contender, first one and then the next (each goes first and last as often as the others).
 * Load from other processes changes from one millisecond to the next, so the contenders take
 * turns request by request rather than batch by batch, and each one's time is the median of its
 * requests: a request that the scheduler stopped for a while does not decide the round. Returns
 * the median µs per request of each contender.
 */
async function round(
  group: Record<string, () => Promise<void>>,
  requests: number,
): Promise<Map<string, number>> {
  const names = Object.keys(group);
  const took = new Map(names.map((name) => [name, [] as number[]]));
  for (let i = 0; i < requests; i++) {
    const turn = i % names.length;
    const order = [...names.slice(turn), ...names.slice(0, turn)];
    if (Math.floor(i / names.length) % 2 === 1) order.reverse();
    for (const name of order) {
      const start = performance.now();
      await group[name]!();
      took.get(name)!.push((performance.now() - start) * 1000);
    }
  }
  return new Map(names.map((name) => [name, median(took.get(name)!)]));
}

/** Median µs per request of every contender, and the median per-round ratio of every comparison. */
async function measure(send: Fetch, rounds: number, requests: number) {
  const runs = contenders(send) as Record<BenchedOperation, Record<string, () => Promise<void>>>;
  const times = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, name: string, value: number) =>
    map.set(name, [...(map.get(name) ?? []), value]);
  for (const group of Object.values(runs)) await round(group, requests); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [operation, group] of Object.entries(runs)) {
      const measured = await round(group, requests);
      for (const [name, value] of measured) push(times, `${operation} · ${name}`, value);
      for (const { contender, baseline } of comparisons) {
        if (!measured.has(contender) || !measured.has(baseline)) continue;
        push(
          ratios,
          `${operation} · ${contender} / ${baseline}`,
          measured.get(contender)! / measured.get(baseline)!,
        );
      }
    }
  }
  return {
    us: (name: string) => median(times.get(name)!),
    ratio: (operation: string, contender: string, baseline: string) => {
      const values = ratios.get(`${operation} · ${contender} / ${baseline}`);
      return values && median(values);
    },
  };
}

const [loadAtStart] = loadavg();
const startedAt = new Date();
const loopback = await measure((input, init) => fetch(input, init), ROUNDS, REQUESTS);
const memory = await measure(inMemory, 10, 2000);
server.close();
const size = await measureBundle(fileURLToPath(new URL("../src/index.ts", import.meta.url)));

const cell = (value: number | undefined, target?: number) => {
  if (value === undefined) return "";
  const verdict =
    target === undefined ? "" : ` (≤ ${target.toFixed(2)}: ${value <= target ? "met" : "missed"})`;
  return `${value.toFixed(2)}×${verdict}`;
};
const [loadAtEnd] = loadavg();
console.log(
  `${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, Node ${process.version}, load average ${loadAtStart!.toFixed(2)} at the start, ${loadAtEnd!.toFixed(2)} at the end; loopback: ${ROUNDS} rounds × ${REQUESTS} requests per contender, medians\n`,
);
console.log(
  "| request | loopback µs | client ÷ raw fetch + timeout signal | client ÷ raw fetch | in-memory fetch µs |",
);
console.log("|---|---:|---:|---:|---:|");
const all = contenders(inMemory);
for (const operation of Object.keys(all) as BenchedOperation[]) {
  for (const name of Object.keys(all[operation])) {
    const row = `${operation} · ${name}`;
    const versusSignal =
      name === "client" ? loopback.ratio(operation, name, "raw fetch + timeout signal") : undefined;
    const versusRaw = loopback.ratio(operation, name, "raw fetch");
    console.log(
      `| ${row} | ${loopback.us(row).toFixed(1)} | ${cell(versusSignal, TARGET)} | ${cell(versusRaw, name === "client" ? TARGET : undefined)} | ${memory.us(row).toFixed(1)} |`,
    );
  }
}
const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
console.log(
  `\nDefault import (src/index.ts with its dependencies, esbuild, minified ESM, code split): ${kB(size.minified)}, gzipped ${kB(size.gzipped)} (${size.gzipped} bytes; budget 10,240); loaded on first use: ${kB(size.lazyMinified)}, gzipped ${kB(size.lazyGzipped)}`,
);
