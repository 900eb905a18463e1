/**
 * A trader of its own account that keeps a market moving while a contract run reads it: resting
 * LIMIT orders near the best prices (the book changes), MARKET orders against them (trades happen),
 * and cancels, one request after another until stopped. It counts what it changed.
 */
import { createHmac } from "node:crypto";

export interface TraderAccount {
  apiKey: string;
  apiSecret: string;
}

export interface BackgroundTrader {
  /** Stops after the request in flight; resolves with what it did. */
  stop(): Promise<{ trades: number; bookChanges: number; requests: number; refused: number }>;
}

interface Rules {
  tick: number;
  quantity: string;
  decimals: number;
}

async function call(
  baseUrl: string,
  account: TraderAccount,
  method: string,
  path: string,
  params: Record<string, string>,
): Promise<{ status: number; json: unknown }> {
  const query = new URLSearchParams({ ...params, timestamp: String(Date.now()) }).toString();
  const signature = createHmac("sha256", account.apiSecret).update(query).digest("hex");
  const response = await fetch(`${baseUrl}${path}?${query}&signature=${signature}`, {
    method,
    headers: { "X-MBX-APIKEY": account.apiKey },
  });
  return { status: response.status, json: await response.json() };
}

async function rulesOf(baseUrl: string, symbol: string): Promise<Rules> {
  const info = (await (await fetch(`${baseUrl}/api/v3/exchangeInfo?symbol=${symbol}`)).json()) as {
    symbols: Array<{ filters: Array<Record<string, string>> }>;
  };
  const filters = info.symbols[0]?.filters ?? [];
  const find = (type: string) => filters.find((f) => f.filterType === type) ?? {};
  const tickText = find("PRICE_FILTER").tickSize ?? "0.01";
  const step = Number(find("LOT_SIZE").stepSize ?? "0.00001");
  const minQty = Number(find("LOT_SIZE").minQty ?? step);
  const minNotional = Number(find("NOTIONAL").minNotional ?? find("MIN_NOTIONAL").minNotional ?? "0");
  const ticker = (await (await fetch(`${baseUrl}/api/v3/ticker/price?symbol=${symbol}`)).json()) as {
    price: string;
  };
  const wanted = Math.max(minQty, (minNotional * 1.5) / Number(ticker.price));
  const stepDecimals = Math.max(0, -Math.floor(Math.log10(step)));
  return {
    tick: Number(tickText),
    quantity: (Math.ceil(wanted / step) * step).toFixed(stepDecimals),
    decimals: Math.max(0, -Math.floor(Math.log10(Number(tickText)))),
  };
}

/** Starts trading `symbol` on `baseUrl` with `account`, until stopped. */
export async function startBackgroundTrader(
  baseUrl: string,
  account: TraderAccount,
  symbol: string,
  seed = 1,
): Promise<BackgroundTrader> {
  const rules = await rulesOf(baseUrl, symbol);
  let random = seed;
  const next = () => {
    random = (random * 1103515245 + 12345) % 2 ** 31;
    return random / 2 ** 31;
  };
  const counts = { trades: 0, bookChanges: 0, requests: 0, refused: 0 };
  const resting: string[] = [];
  let running = true;
  const step = async () => {
    const book = (await (await fetch(`${baseUrl}/api/v3/ticker/bookTicker?symbol=${symbol}`)).json()) as {
      bidPrice: string;
      askPrice: string;
    };
    counts.requests += 1;
    const side = next() < 0.5 ? "BUY" : "SELL";
    const roll = next();
    let answer: { status: number; json: unknown };
    if (roll < 0.45) {
      // A resting order at or just inside the best price of its side: the book's best level changes.
      const best = Number(side === "BUY" ? book.bidPrice : book.askPrice);
      const price =
        side === "BUY"
          ? best + rules.tick * Math.floor(next() * 2)
          : best - rules.tick * Math.floor(next() * 2);
      answer = await call(baseUrl, account, "POST", "/api/v3/order", {
        symbol,
        side,
        type: "LIMIT",
        timeInForce: "GTC",
        quantity: rules.quantity,
        price: price.toFixed(rules.decimals),
      });
      const id = (answer.json as { orderId?: number }).orderId;
      if (answer.status === 200 && id !== undefined) {
        resting.push(String(id));
        counts.bookChanges += 1;
      }
    } else if (roll < 0.8 || resting.length === 0) {
      answer = await call(baseUrl, account, "POST", "/api/v3/order", {
        symbol,
        side,
        type: "MARKET",
        quantity: rules.quantity,
      });
      if (answer.status === 200) counts.trades += 1;
    } else {
      const orderId = resting.splice(Math.floor(next() * resting.length), 1)[0] as string;
      answer = await call(baseUrl, account, "DELETE", "/api/v3/order", { symbol, orderId });
      if (answer.status === 200) counts.bookChanges += 1;
    }
    counts.requests += 1;
    if (answer.status !== 200) counts.refused += 1;
  };
  const loop = (async () => {
    while (running) await step().catch(() => {});
  })();
  return {
    async stop() {
      running = false;
      await loop;
      for (const orderId of resting)
        await call(baseUrl, account, "DELETE", "/api/v3/order", { symbol, orderId }).catch(() => undefined);
      return counts;
    },
  };
}
