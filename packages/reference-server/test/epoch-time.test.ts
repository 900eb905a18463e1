// Epoch time parameters in microseconds (`x-epoch-time` in the spec): `timestamp` is judged as the
// instant it names, against the window in milliseconds; `startTime`/`endTime` select the items
// whose millisecond time names an instant within the bounds, inclusive. The bound that tells the
// units apart is the spec's, read through the model.
import { loadOpenApi } from "@marketapi/spec";
import { buildSpecModel } from "@marketapi/spec/model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { epochMillis } from "../src/http/epoch-time.js";
import { type RunningServer, startServer } from "../src/index.js";
import { type RawResponse, send, sendSigned } from "./support/http.js";

const rule = buildSpecModel(loadOpenApi()).epochTime;

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, seed: 5 });
});
afterAll(() => server.close());

const signed = (path: string, query: string, timestamp?: number) =>
  sendSigned(server.url, {
    ...server.demo,
    method: "GET",
    path,
    query,
    ...(timestamp === undefined ? {} : { timestamp }),
  });
const codeOf = (res: RawResponse) => (res.json as { code?: number }).code;

describe("the spec states the units once", () => {
  it("x-epoch-time: timestamp, startTime and endTime; microseconds from 10^14", () => {
    expect(rule?.parameters).toEqual(["timestamp", "startTime", "endTime"]);
    expect(rule?.microsecondsFrom).toBe(1e14);
  });
});

describe("epochMillis: a window bound in milliseconds (given/want)", () => {
  const cases: { given: [number, "start" | "end"]; want: number; spec?: "without x-epoch-time" }[] = [
    { given: [1704067200000, "start"], want: 1704067200000 },
    { given: [1704067200000, "end"], want: 1704067200000 },
    { given: [1704067200000000, "start"], want: 1704067200000 },
    { given: [1704067200000000, "end"], want: 1704067200000 },
    { given: [1704067200000001, "start"], want: 1704067200001 },
    { given: [1704067200000999, "end"], want: 1704067200000 },
    { given: [99_999_999_999_999, "start"], want: 99_999_999_999_999 },
    { given: [1704067200000500, "start"], want: 1704067200000500, spec: "without x-epoch-time" },
  ];
  it.each(cases.map((c) => ({ ...c, spec: c.spec ?? "with x-epoch-time" })))(
    "$given → $want, $spec",
    ({ given: [value, bound], want, spec }) => {
      expect(epochMillis(spec === "with x-epoch-time" ? rule : undefined, value, bound)).toBe(want);
    },
  );
});

describe("timestamp in microseconds (signed reads)", () => {
  const cases: { name: string; shiftMs: number; want: number | "served" }[] = [
    { name: "now", shiftMs: 0, want: "served" },
    { name: "2.5 s old: inside the default window of 5000 ms", shiftMs: -2500, want: "served" },
    { name: "7 s old: outside the default window", shiftMs: -7000, want: -1021 },
    { name: "3 s ahead: more than 1000 ms ahead", shiftMs: 3000, want: -1021 },
  ];
  it.each(cases)("$name", async ({ shiftMs, want }) => {
    const res = await signed("/api/v3/openOrders", "symbol=BTCUSDT", (Date.now() + shiftMs) * 1000 + 500);
    if (want === "served") expect(res.status, res.text).toBe(200);
    else expect(codeOf(res), res.text).toBe(want);
  });
});

describe("startTime/endTime in microseconds", () => {
  it("aggTrades: a bound inside a millisecond selects the whole milliseconds within it", async () => {
    const trades = server.exchange.aggTrades("BTCUSDT", { limit: 1000 });
    const pivot = trades[20]?.T ?? 0;
    const read = async (query: string) =>
      (
        (await send(server.url, { path: "/api/v3/aggTrades", query: `symbol=BTCUSDT&${query}` })).json as {
          a: number;
          T: number;
        }[]
      ).map((t) => t.a);
    const inside = (from: number, to: number) =>
      trades.filter((t) => t.T * 1000 >= from && t.T * 1000 <= to).map((t) => t.a);
    const from = pivot * 1000 + 1;
    const to = (pivot + 30_000) * 1000 + 999;
    expect(await read(`startTime=${from}&endTime=${to}`)).toEqual(inside(from, to));
    expect(await read(`startTime=${pivot + 1}&endTime=${pivot + 30_000}`)).toEqual(inside(from, to));
    // The instant of `pivot` exactly: inclusive.
    expect(await read(`startTime=${pivot * 1000}&endTime=${pivot * 1000 + 999}`)).toEqual(
      trades.filter((t) => t.T === pivot).map((t) => t.a),
    );
  });

  it("allOrders: the same orders as the window in milliseconds", async () => {
    const since = Date.now() - 3_600_000;
    const milli = await signed("/api/v3/allOrders", `symbol=BTCUSDT&startTime=${since}`);
    const micro = await signed("/api/v3/allOrders", `symbol=BTCUSDT&startTime=${since * 1000}`);
    expect(micro.status, micro.text).toBe(200);
    expect(micro.json).toEqual(milli.json);
  });
});
