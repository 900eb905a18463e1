// cursor_paging's judgement of one page asked from a cursor (beforeCursor): the items it holds
// before its cursor, given the spec's own x-cursor-paging of each paged operation.
import { describe, expect, it } from "vitest";
import { beforeCursor } from "../src/checks/cursor-paging.js";
import type { ParamList } from "../src/http/request.js";
import type { RoundTrip } from "../src/session/round-trip.js";
import { roundTrip } from "./support/round-trips.js";

const page = (operationId: string, params: ParamList, status: number, json: unknown): RoundTrip =>
  roundTrip(operationId, params, { status, json });

const trades = (...ids: number[]) => ids.map((id) => ({ id, price: "1.00", qty: "1.00" }));
const aggregates = (...ids: number[]) => ids.map((a) => ({ a, p: "1.00", q: "1.00" }));

describe("beforeCursor", () => {
  const rows: Array<{ given: string; exchange: RoundTrip; want: string | undefined }> = [
    {
      given: "a page from its cursor on",
      exchange: page(
        "historical_trades",
        [
          ["symbol", "BTCUSDT"],
          ["fromId", "7"],
        ],
        200,
        trades(7, 8, 9),
      ),
      want: undefined,
    },
    {
      given: "an empty page past the newest",
      exchange: page(
        "historical_trades",
        [
          ["symbol", "BTCUSDT"],
          ["fromId", "900"],
        ],
        200,
        [],
      ),
      want: undefined,
    },
    {
      given: "the newest trade answered past it (a clamped cursor)",
      exchange: page(
        "historical_trades",
        [
          ["symbol", "BTCUSDT"],
          ["fromId", "900"],
        ],
        200,
        trades(36),
      ),
      want: "fromId=900 answered ids 36, before the cursor",
    },
    {
      given: "aggregate trades from before the cursor",
      exchange: page(
        "aggTrades",
        [
          ["symbol", "BTCUSDT"],
          ["fromId", "5"],
        ],
        200,
        aggregates(4, 5, 6),
      ),
      want: "fromId=5 answered ids 4, before the cursor",
    },
    {
      given: "a page with no cursor",
      exchange: page("historical_trades", [["symbol", "BTCUSDT"]], 200, trades(1, 2)),
      want: undefined,
    },
    {
      given: "a refusal",
      exchange: page(
        "historical_trades",
        [
          ["symbol", "BTCUSDT"],
          ["fromId", "9"],
        ],
        400,
        { code: -1100, msg: "x" },
      ),
      want: undefined,
    },
  ];
  it.each(rows)("$given", ({ exchange, want }) => {
    const paging = exchange.op.behaviour.cursorPaging!;
    const got = beforeCursor(paging, exchange);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toContain(want);
  });
});
