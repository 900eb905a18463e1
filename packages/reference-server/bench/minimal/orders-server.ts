// The irreducible work of a signed order, as a minimal program: the machine's ceiling that the
// reference server is compared with (bench/ceiling.bench.ts). A node:http server that reads the
// form body, checks its HMAC-SHA256 signature and timestamp, matches the order against a small
// book (price levels in a sorted array, FIFO inside a level) and answers JSON.
//
// Durable variant (argv: PORT [STATE_PATH [normal|full]]): every order and trade is written to
// SQLite (better-sqlite3, WAL) in one transaction per turn of the event loop, and the answers of
// that turn are sent once it commits (group commit, as the reference server does).
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { monitorEventLoopDelay } from "node:perf_hooks";

const [port, statePath, sync] = process.argv.slice(2);
const SECRETS = new Map([
  ["bench-key-a", "bench-secret-a"],
  ["bench-key-b", "bench-secret-b"],
]);

interface Resting {
  id: number;
  account: string;
  price: number;
  qty: number;
}

/** Levels sorted best first; each a FIFO of resting orders. */
class Side {
  readonly levels: { price: number; orders: Resting[] }[] = [];
  constructor(private readonly better: (a: number, b: number) => boolean) {}

  add(order: Resting): void {
    let i = 0;
    while (i < this.levels.length && this.better((this.levels[i] as { price: number }).price, order.price))
      i += 1;
    const level = this.levels[i];
    if (level && level.price === order.price) level.orders.push(order);
    else this.levels.splice(i, 0, { price: order.price, orders: [order] });
  }
}

const bids = new Side((a, b) => a > b);
const asks = new Side((a, b) => a < b);
let nextOrderId = 1;
let nextTradeId = 1;

interface Write {
  order: [number, string, string, number, number, number, string, number];
  trades: [number, number, number, number, number, number][];
  filled: number[];
}

function place(account: string, side: string, price: number, qty: number, now: number): [object, Write] {
  const id = nextOrderId++;
  const book = side === "BUY" ? asks : bids;
  const crosses = side === "BUY" ? (p: number) => p <= price : (p: number) => p >= price;
  let left = qty;
  const write: Write = { order: [id, account, side, price, qty, 0, "NEW", now], trades: [], filled: [] };
  const fills: { price: string; qty: string; tradeId: number }[] = [];
  while (left > 0 && book.levels.length > 0 && crosses((book.levels[0] as { price: number }).price)) {
    const level = book.levels[0] as { price: number; orders: Resting[] };
    const maker = level.orders[0] as Resting;
    const traded = Math.min(left, maker.qty);
    left -= traded;
    maker.qty -= traded;
    const tradeId = nextTradeId++;
    fills.push({ price: level.price.toFixed(2), qty: traded.toFixed(8), tradeId });
    write.trades.push([tradeId, maker.id, id, level.price, traded, now]);
    if (maker.qty === 0) {
      level.orders.shift();
      write.filled.push(maker.id);
      if (level.orders.length === 0) book.levels.shift();
    }
  }
  const status = left === 0 ? "FILLED" : left < qty ? "PARTIALLY_FILLED" : "NEW";
  if (left > 0) (side === "BUY" ? bids : asks).add({ id, account, price, qty: left });
  write.order[5] = qty - left;
  write.order[6] = status;
  const answer = {
    symbol: "BTCUSDT",
    orderId: id,
    transactTime: now,
    price: price.toFixed(2),
    origQty: qty.toFixed(8),
    executedQty: (qty - left).toFixed(8),
    status,
    type: "LIMIT",
    side,
    fills,
  };
  return [answer, write];
}

function fail(res: ServerResponse, status: number, code: number, msg: string): void {
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify({ code, msg }));
}

/** Checks the signature over the form body (all but its final &signature=...) and the timestamp. */
function verified(req: IncomingMessage, body: string): URLSearchParams | undefined {
  const secret = SECRETS.get(String(req.headers["x-mbx-apikey"]));
  const at = body.lastIndexOf("&signature=");
  if (!secret || at < 0) return undefined;
  const expected = createHmac("sha256", secret).update(body.slice(0, at)).digest();
  const given = Buffer.from(body.slice(at + 11), "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const params = new URLSearchParams(body);
  const timestamp = Number(params.get("timestamp"));
  const window = Number(params.get("recvWindow") ?? 5000);
  if (!(Math.abs(Date.now() - timestamp) <= window)) return undefined;
  return params;
}

type Pending = { res: ServerResponse; text: string; write: Write };
const commit = durableCommit();

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    if (req.method !== "POST" || !req.url?.startsWith("/api/v3/order"))
      return fail(res, 404, -1, "not found");
    const params = verified(req, Buffer.concat(chunks).toString("latin1"));
    if (!params) return fail(res, 401, -1022, "Signature for this request is not valid.");
    const side = params.get("side") ?? "";
    const price = Number(params.get("price"));
    const qty = Number(params.get("quantity"));
    if ((side !== "BUY" && side !== "SELL") || !(price > 0) || !(qty > 0))
      return fail(res, 400, -1102, "bad order");
    const [answer, write] = place(String(req.headers["x-mbx-apikey"]), side, price, qty, Date.now());
    const text = JSON.stringify(answer);
    if (commit) commit({ res, text, write });
    else res.writeHead(200, { "Content-Type": "application/json" }).end(text);
  });
}).listen(Number(port), "127.0.0.1", () => process.send?.("ready"));

/** With a state path: a function that queues an answer until its turn's transaction commits. */
function durableCommit(): ((pending: Pending) => void) | undefined {
  if (!statePath) return undefined;
  const Driver = createRequire(import.meta.url)("better-sqlite3") as typeof import("better-sqlite3");
  const db = new Driver(statePath);
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${sync === "full" ? "FULL" : "NORMAL"}`);
  db.exec(`CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, account TEXT, side TEXT, price REAL,
      qty REAL, executed REAL, status TEXT, time INTEGER);
    CREATE TABLE IF NOT EXISTS trades (id INTEGER PRIMARY KEY, maker INTEGER, taker INTEGER, price REAL,
      qty REAL, time INTEGER);`);
  const insertOrder = db.prepare("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  const insertTrade = db.prepare("INSERT INTO trades VALUES (?, ?, ?, ?, ?, ?)");
  const fillOrder = db.prepare("UPDATE orders SET executed = qty, status = 'FILLED' WHERE id = ?");
  const writeAll = db.transaction((batch: Pending[]) => {
    for (const { write } of batch) {
      insertOrder.run(...write.order);
      for (const trade of write.trades) insertTrade.run(...trade);
      for (const id of write.filled) fillOrder.run(id);
    }
  });
  let batch: Pending[] = [];
  return (pending) => {
    batch.push(pending);
    if (batch.length > 1) return;
    setImmediate(() => {
      const done = batch;
      batch = [];
      writeAll(done);
      for (const { res, text } of done) res.writeHead(200, { "Content-Type": "application/json" }).end(text);
    });
  };
}

const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
process.on("message", (message: string) => {
  if (message === "reset") loop.reset();
  if (message === "report") process.send?.({ maxStallMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6 });
});
process.on("SIGTERM", () => process.exit(0));
