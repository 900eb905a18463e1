// Header parameters (`in: header` in the spec) are read from the request's headers, validated with
// the others, and are not parameters of the query or the body; they are not signed. The one the
// spec declares, X-MBX-TIME-UNIT, selects the unit of the answer's times (given a request, want
// the answer), on the API's operations and the sandbox document's alike.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { type RawResponse, send, sendSigned } from "./support/http.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 5 });
});
afterAll(() => server.close());

const UNIT = "X-MBX-TIME-UNIT";
const MICROS_FROM = 1e14;
const serverTimeOf = (res: RawResponse) => (res.json as { serverTime: number }).serverTime;

interface Given {
  path: string;
  query?: string;
  headers?: Record<string, string>;
  signed?: boolean;
}
type Want = { unit: "micro" | "milli" } | { code: number };

/** Every epoch time of an answer (the keys the live API uses for them), however deep. */
function times(body: unknown, out: number[] = []): number[] {
  if (Array.isArray(body)) for (const item of body) times(item, out);
  else if (typeof body === "object" && body !== null)
    for (const [key, value] of Object.entries(body)) {
      if (
        /^(serverTime|time|T|transactTime|updateTime|openTime|closeTime)$/.test(key) &&
        typeof value === "number"
      )
        out.push(value);
      else times(value, out);
    }
  return out;
}

function ask({ path, query = "", headers = {}, signed }: Given): Promise<RawResponse> {
  return signed
    ? sendSigned(server.url, { ...server.demo, method: "GET", path, query, headers })
    : send(server.url, { path, query, headers });
}

const cases: { name: string; given: Given; want: Want }[] = [
  {
    name: "MICROSECOND",
    given: { path: "/api/v3/time", headers: { [UNIT]: "MICROSECOND" } },
    want: { unit: "micro" },
  },
  {
    name: "microsecond (lower case)",
    given: { path: "/api/v3/time", headers: { [UNIT]: "microsecond" } },
    want: { unit: "micro" },
  },
  {
    name: "the header's name in lower case",
    given: { path: "/api/v3/time", headers: { "x-mbx-time-unit": "MICROSECOND" } },
    want: { unit: "micro" },
  },
  {
    name: "MILLISECOND",
    given: { path: "/api/v3/time", headers: { [UNIT]: "MILLISECOND" } },
    want: { unit: "milli" },
  },
  {
    name: "millisecond",
    given: { path: "/api/v3/time", headers: { [UNIT]: "millisecond" } },
    want: { unit: "milli" },
  },
  { name: "no header", given: { path: "/api/v3/time" }, want: { unit: "milli" } },
  {
    name: "an empty header (not sent)",
    given: { path: "/api/v3/time", headers: { [UNIT]: "" } },
    want: { unit: "milli" },
  },
  {
    name: "an unknown unit",
    given: { path: "/api/v3/time", headers: { [UNIT]: "NANOSECOND" } },
    want: { code: -1194 },
  },
  {
    name: "mixed case",
    given: { path: "/api/v3/time", headers: { [UNIT]: "Microsecond" } },
    want: { code: -1194 },
  },
  {
    name: "in the query, it is no parameter",
    given: { path: "/api/v3/time", query: `${UNIT}=MICROSECOND` },
    want: { code: -1104 },
  },
  {
    name: "aggregate trades, each T",
    given: { path: "/api/v3/aggTrades", query: "symbol=BTCUSDT&limit=3", headers: { [UNIT]: "MICROSECOND" } },
    want: { unit: "micro" },
  },
  {
    name: "a signed read: the header is not signed",
    given: { path: "/api/v3/account", headers: { [UNIT]: "MICROSECOND" }, signed: true },
    want: { unit: "micro" },
  },
  {
    name: "a signed read, an unknown unit",
    given: {
      path: "/api/v3/openOrders",
      query: "symbol=BTCUSDT",
      headers: { [UNIT]: "SECOND" },
      signed: true,
    },
    want: { code: -1194 },
  },
  {
    name: "the sandbox document's klines",
    given: {
      path: "/api/v3/klines",
      query: "symbol=BTCUSDT&interval=1m&limit=2",
      headers: { [UNIT]: "MICROSECOND" },
    },
    want: { unit: "micro" },
  },
];

describe("header parameters: X-MBX-TIME-UNIT", () => {
  it.each(cases)("$name", async ({ given, want }) => {
    const res = await ask(given);
    if ("code" in want) {
      expect(res.status, res.text).toBe(400);
      expect((res.json as { code: number }).code).toBe(want.code);
      return;
    }
    expect(res.status, res.text).toBe(200);
    const found = given.path === "/api/v3/klines" ? klineTimes(res.json) : times(res.json);
    expect(found.length, res.text).toBeGreaterThan(0);
    for (const time of found)
      if (want.unit === "micro") expect(time).toBeGreaterThanOrEqual(MICROS_FROM);
      else expect(time).toBeLessThan(MICROS_FROM);
  });

  it("a time in microseconds is the same instant as in milliseconds (aggregate trades)", async () => {
    const query = "symbol=BTCUSDT&limit=5";
    const milli = times((await send(server.url, { path: "/api/v3/aggTrades", query })).json);
    const micro = times(
      (await send(server.url, { path: "/api/v3/aggTrades", query, headers: { [UNIT]: "MICROSECOND" } })).json,
    );
    expect(micro).toEqual(milli.map((t) => t * 1000));
  });

  it("answers kept for repeated reads are never given across units", async () => {
    const path = "/api/v3/exchangeInfo";
    const query = "symbol=BTCUSDT";
    for (const round of [1, 2]) {
      const milli = serverTimeOf(await send(server.url, { path, query }));
      const micro = serverTimeOf(await send(server.url, { path, query, headers: { [UNIT]: "MICROSECOND" } }));
      expect(milli, `round ${round}`).toBeLessThan(MICROS_FROM);
      expect(micro, `round ${round}`).toBeGreaterThanOrEqual(MICROS_FROM);
    }
  });
});

/** A kline row's open and close times (positions 0 and 6). */
function klineTimes(body: unknown): number[] {
  return (body as unknown[][]).flatMap((row) => [row[0] as number, row[6] as number]);
}
