// Where a client call's time goes on loopback, against raw fetch of the same request: event-loop
// turns per call (a setImmediate chain counts them), then each call split in four by a fetch that
// notes the time: method → fetch called ("before"), fetch called → Response ("fetch"), body read
// ("read"), body read → method resolved ("after"). Medians of BENCH_REQUESTS calls per side, the
// sides taking turns call by call. With IN_MEMORY=1 the fetch answers at once, without a socket.
// Run: npm run build && npx tsx bench/call-segments.bench.ts (in packages/client).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5000);
const dist = new URL("../dist/index.js", import.meta.url).href;
const { createSpotClient } = (await import(dist)) as typeof import("../src/index.js");

const body = JSON.stringify({
  lastUpdateId: 1027024,
  bids: [["4.00000000", "431.00000000"]],
  asks: [["4.00000200", "12.00000000"]],
});
const headers = { "Content-Type": "application/json", "X-MBX-USED-WEIGHT-1M": "1" };
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

let called = 0;
let answered = 0;
let read = 0;
/** fetch, or an answer at once, noting when it was called, when it answered and when its body was read. */
const send = async (input: string | Request, init?: RequestInit): Promise<Response> => {
  called = performance.now();
  const response = process.env.IN_MEMORY ? new Response(body, { headers }) : await fetch(input, init);
  answered = performance.now();
  const text = response.text.bind(response);
  response.text = async () => {
    const value = await text();
    read = performance.now();
    return value;
  };
  return response;
};
const options = { baseUrl: base, apiKey: "k", apiSecret: "s", fetch: send };
const client = createSpotClient(options);
const bare = createSpotClient({ ...options, timeoutMs: 0, retry: false });
const depth = `${base}/api/v3/depth?symbol=BTCUSDT&limit=5`;
const sides: Record<string, () => Promise<unknown>> = {
  "raw fetch": async () => (await send(depth)).text(),
  "client, timeoutMs 0, retry false": () => bare.order_book({ symbol: "BTCUSDT", limit: 5 }),
  client: () => client.order_book({ symbol: "BTCUSDT", limit: 5 }),
};
const names = Object.keys(sides);

let turns = 0;
let counting = true;
const tick = () => {
  turns++;
  if (counting) setImmediate(tick);
};
setImmediate(tick);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const parts = ["before", "fetch", "read", "after", "total"] as const;
const took = new Map(names.map((name) => [name, Object.fromEntries(parts.map((p) => [p, [] as number[]]))]));
const turnsOf = new Map(names.map((name) => [name, 0]));
const warmUp = Math.floor(REQUESTS / 5);
for (let i = 0; i < REQUESTS + warmUp; i++) {
  const turn = i % names.length;
  for (const name of [...names.slice(turn), ...names.slice(0, turn)]) {
    const before = turns;
    const start = performance.now();
    await sides[name]!();
    const end = performance.now();
    if (i < warmUp) continue;
    turnsOf.set(name, turnsOf.get(name)! + turns - before);
    const part = took.get(name)!;
    part.before!.push((called - start) * 1000);
    part.fetch!.push((answered - called) * 1000);
    part.read!.push((read - answered) * 1000);
    part.after!.push((end - read) * 1000);
    part.total!.push((end - start) * 1000);
  }
}
counting = false;
server.close();
console.log(
  `${process.env.IN_MEMORY ? "in memory" : "loopback"}, ${REQUESTS} calls per side, load average ${loadavg()[0]!.toFixed(1)}; medians, µs\n`,
);
console.log(`| order_book | event-loop turns per call | ${parts.join(" | ")} |`);
console.log(`|---|---:|${parts.map(() => "---:").join("|")}|`);
for (const name of names) {
  const part = took.get(name)!;
  console.log(
    `| ${name} | ${(turnsOf.get(name)! / REQUESTS).toFixed(2)} | ${parts.map((p) => median(part[p]!).toFixed(1)).join(" | ")} |`,
  );
}
