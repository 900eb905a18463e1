// The opt-in load phase (--load, rate_limit_enforcement): its judgement of a burst as given/want,
// and the whole phase against a reference server with a small weight limit and a short ban: the
// 429 exactly at the limit, the ban after it, recovery. The phase waits for the target's windows
// (the weight window is a minute), so the end-to-end case waits up to about a minute and a half.
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ANSWER_SHAPES,
  type BurstStep,
  connectionProblems,
  type ExpectedAnswer,
  framingProblem,
  judgeBurst,
  ORDER_TERMS,
  retryAfterProblems,
} from "../src/checks/rate-limit-enforcement.js";
import { requestPieces } from "../src/http/pipelined.js";
import { reportText } from "../src/report/text.js";
import { loadConnectionFaults, startConnectionProxy } from "./support/connection-faults.js";
import { startFaultProxy } from "./support/fault-proxy.js";
import {
  burstFaults,
  LOAD_ORDER_LIMIT,
  LOAD_WEIGHT_LIMIT,
  orderBurstFaults,
  probeFaults,
} from "./support/load-faults.js";
import { runContract } from "./support/run.js";

/** A run of the load phase alone, with trading, against `baseUrl` in front of `server`. */
function runLoadPhase(server: RunningServer, baseUrl: string, extra: { timeoutMs?: number } = {}) {
  return runContract({
    baseUrl,
    apiKey: server.demo.apiKey,
    apiSecret: server.demo.apiSecret,
    referenceExtras: true,
    allowTrading: true,
    only: ["rate_limit_enforcement"],
    load: true,
    exploreBudget: 0,
    seed: 1,
    ...extra,
  });
}

const TOO_MUCH = { status: 429, code: -1003 };
const step = (s: Partial<BurstStep> & Pick<BurstStep, "status" | "usedBefore">): BurstStep => ({
  weight: 250,
  usedAfter: s.status === 200 ? s.usedBefore + 250 : s.usedBefore,
  retryAfter: s.status === 200 ? undefined : "30",
  code: s.status === 200 ? undefined : -1003,
  windowLeftMs: 30_000,
  ...s,
});

describe("judgeBurst", () => {
  const cases: Array<{ given: string; steps: BurstStep[]; want: RegExp[] }> = [
    {
      given: "served up to the limit, 429 at the request that passes it",
      steps: [
        step({ status: 200, usedBefore: 0 }),
        step({ status: 200, usedBefore: 250 }),
        step({ status: 429, usedBefore: 500 }),
      ],
      want: [],
    },
    {
      given: "a 429 while the request fits",
      steps: [step({ status: 200, usedBefore: 0 }), step({ status: 429, usedBefore: 250 })],
      want: [/request 2 .*refused with 429 although it fits/],
    },
    {
      given: "served past the limit",
      steps: [
        step({ status: 200, usedBefore: 0 }),
        step({ status: 200, usedBefore: 250 }),
        step({ status: 200, usedBefore: 500 }),
      ],
      want: [/request 3 .*served although it passes the limit/],
    },
    {
      given: "the refusal without Retry-After and with another code",
      steps: [
        step({ status: 200, usedBefore: 500, weight: 100, usedAfter: 600 }),
        step({ status: 429, usedBefore: 600, retryAfter: undefined, code: -1015 }),
      ],
      want: [/code -1015, expected -1003/, /no Retry-After/],
    },
    {
      given: "a used-weight counter that does not add the request's weight",
      steps: [step({ status: 200, usedBefore: 0, usedAfter: 1 }), step({ status: 429, usedBefore: 500 })],
      want: [/X-MBX-USED-WEIGHT-1M says 1, not 250/],
    },
  ];
  for (const { given, steps, want } of cases) {
    it(given, () => {
      const problems = judgeBurst(600, steps, TOO_MUCH);
      expect(problems).toHaveLength(want.length);
      for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
    });
  }

  const order = (status: number, usedBefore: number, extra: Partial<BurstStep> = {}): BurstStep =>
    step({
      status,
      usedBefore,
      weight: 1,
      usedAfter: status === 200 ? usedBefore + 1 : undefined,
      code: status === 200 ? undefined : -1015,
      ...extra,
    });
  const orderCases: Array<{ given: string; steps: BurstStep[]; want: RegExp[] }> = [
    {
      given: "orders up to the limit, then the too-many-orders refusal",
      steps: [order(200, 0), order(200, 1), order(429, 2)],
      want: [],
    },
    {
      given: "an order refused under the limit",
      steps: [order(200, 0), order(429, 1)],
      want: [/order 2 \(counting 1, 1 of 2 used before it\): refused with 429 although it fits/],
    },
    {
      given: "an order counter that does not count the order",
      steps: [order(200, 0, { usedAfter: 0 }), order(200, 1), order(429, 2)],
      want: [/X-MBX-ORDER-COUNT says 0, not 1/],
    },
    {
      given: "a Retry-After that outlasts the order count's window",
      steps: [order(200, 0), order(200, 1), order(429, 2, { retryAfter: "60", windowLeftMs: 9000 })],
      want: [/Retry-After 60 s outlasts the order count's window/],
    },
  ];
  for (const { given, steps, want } of orderCases) {
    it(`ORDERS: ${given}`, () => {
      const problems = judgeBurst(2, steps, { status: 429, code: -1015 }, ORDER_TERMS);
      expect(problems).toHaveLength(want.length);
      for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
    });
  }

  describe("Retry-After: whole seconds that end with the weight window, give or take a second", () => {
    const cases: Array<{
      given: string;
      retryAfter: string | undefined;
      leftMs: number;
      want: RegExp | undefined;
    }> = [
      { given: "the window's rest, rounded up", retryAfter: "12", leftMs: 11_500, want: undefined },
      { given: "a second past the window", retryAfter: "13", leftMs: 11_500, want: undefined },
      { given: "a second short of it (clocks)", retryAfter: "11", leftMs: 11_500, want: undefined },
      { given: "absent", retryAfter: undefined, leftMs: 11_500, want: /no Retry-After/ },
      { given: "zero", retryAfter: "0", leftMs: 11_500, want: /not a whole number of seconds ≥ 1/ },
      { given: "a fraction", retryAfter: "1.5", leftMs: 11_500, want: /not a whole number/ },
      {
        given: "longer than the window",
        retryAfter: "120",
        leftMs: 11_500,
        want: /outlasts the weight window, which ends in 11.5 s/,
      },
      {
        given: "a second when the window ends in 40 s",
        retryAfter: "1",
        leftMs: 40_000,
        want: /ends before the weight window.*still falls in the window/,
      },
      { given: "a second when the window ends in 2 s", retryAfter: "1", leftMs: 2_000, want: undefined },
    ];
    for (const { given, retryAfter, leftMs, want } of cases) {
      it(given, () => {
        const problems = retryAfterProblems("r", retryAfter, leftMs);
        if (want === undefined) expect(problems).toEqual([]);
        else expect(problems[0]).toMatch(want);
      });
    }
  });
});

describe("connectionProblems", () => {
  const expected: ExpectedAnswer[] = [
    { what: "order_book", isItsAnswer: ANSWER_SHAPES.book },
    { what: "ping", isItsAnswer: ANSWER_SHAPES.ping },
    { what: "cancel_order", isItsAnswer: ANSWER_SHAPES.refusal({ status: 400, code: -1121 }) },
  ];
  const book = { status: 200, bodyText: '{"lastUpdateId":1,"bids":[],"asks":[]}' };
  const ping = { status: 200, bodyText: "{}" };
  const refused = { status: 400, bodyText: '{"code":-1121,"msg":"Invalid symbol."}' };
  const cases: Array<{ given: string; answers: (typeof book)[]; end: string; want: RegExp[] }> = [
    { given: "all answered, in order", answers: [book, ping, refused], end: "answered", want: [] },
    { given: "closed after the first (allowed)", answers: [book], end: "closed", want: [] },
    {
      given: "the later, lighter request answered first",
      answers: [ping, book, refused],
      end: "answered",
      want: [
        /answer 1 \(status 200\) is not the answer to request 1, order_book/,
        /answer 2 .* request 2, ping/,
      ],
    },
    {
      given: "the third left unanswered on an open connection",
      answers: [book, ping],
      end: "timeout",
      want: [
        /request 3 of 3, cancel_order \(how\), got no answer within 5000 ms while the connection stayed open/,
      ],
    },
    {
      given: "a refusal with another code than the same request sent at once",
      answers: [book, ping, { status: 400, bodyText: '{"code":-1100,"msg":"Malformed."}' }],
      end: "answered",
      want: [/answer 3 \(status 400\) is not the answer to request 3, cancel_order/],
    },
    {
      given: "a rate limit's refusal answers any request",
      answers: [{ status: 429, bodyText: '{"code":-1003}' }, ping, refused],
      end: "answered",
      want: [],
    },
    {
      given: "a server error",
      answers: [book, { status: 503, bodyText: "" }],
      end: "closed",
      want: [/answer 2 \(to ping; how\): server error, status 503/],
    },
  ];
  for (const { given, answers, end, want } of cases) {
    it(given, () => {
      const problems = connectionProblems(expected, { answers, end }, 5000, "how");
      expect(problems).toHaveLength(want.length);
      for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
    });
  }

  it("cuts a request into pieces: its head a few bytes each, its body a byte each, nothing lost", () => {
    const bytes = "DELETE /api/v3/order HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\na=1";
    const pieces = requestPieces(bytes);
    expect(pieces.join("")).toBe(bytes);
    expect(pieces.slice(-3)).toEqual(["a", "=", "1"]);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(8);
  });
});

describe("the load phase against the reference server", () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
  });

  it("finds the 429 at the limit, the ban after it and recovery", async () => {
    server = await startServer({
      port: 0,
      host: "127.0.0.1",
      config: { rateLimits: { requestWeightPerMinute: LOAD_WEIGHT_LIMIT, banAfter429s: 3, banSeconds: 2 } },
    });
    const result = await runLoadPhase(server, server.url);
    const explain = reportText(result, { color: false });
    const cell = result.cells.find(
      (c) => c.check === "rate_limit_enforcement" && c.operationId === "order_book",
    );
    expect(result.exitCode, explain).toBe(0);
    // three verdicts: the limit held exactly, the ban, the recovery
    expect(cell?.status, explain).toBe("passed");
    expect(cell?.passed, explain).toBe(3);
  });
});

describe("the load phase catches faults of a connection used on", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // Default limits: no bounded burst reaches them, so the phase probes the connection at once.
    server = await startServer({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server.close();
  });
  for (const fault of loadConnectionFaults()) {
    it(`${fault.name}: ${fault.description}`, async () => {
      const proxy = await startConnectionProxy(server.url, fault);
      try {
        // A request left unanswered is seen when its time limit ends.
        const result = await runLoadPhase(server, proxy.url, { timeoutMs: 2000 }); // time limit under test
        const explain = reportText(result, { color: false });
        expect(
          result.cells.filter((c) => c.status === "failed").map((c) => c.check),
          explain,
        ).toEqual(expect.arrayContaining(fault.caughtBy));
      } finally {
        await proxy.close();
      }
    });
  }
});

describe("the load phase catches faults of rate-limit enforcement and of the connection", () => {
  const cases = [
    ...burstFaults().map((fault) => ({ fault, limits: { requestWeightPerMinute: LOAD_WEIGHT_LIMIT } })),
    // The default weight limit (no burst reaches it) and a small ORDERS limit the phase reaches.
    ...orderBurstFaults().map((fault) => ({ fault, limits: { ordersPer10s: LOAD_ORDER_LIMIT } })),
    // The default limits: no bounded burst reaches them, so the phase probes the connection at once.
    ...probeFaults().map((fault) => ({ fault, limits: {} })),
  ];
  for (const { fault, limits } of cases) {
    it(`${fault.name}: ${fault.description}`, async () => {
      // A server of its own: the weight window counts by address, and each fault spends it.
      const server = await startServer({
        port: 0,
        host: "127.0.0.1",
        config: { rateLimits: limits },
      });
      const proxy = await startFaultProxy(server.url, fault);
      try {
        const result = await runLoadPhase(server, proxy.url);
        const failed = result.cells.filter((c) => c.status === "failed").map((c) => c.check);
        expect(failed, reportText(result, { color: false })).toContain("rate_limit_enforcement");
      } finally {
        await proxy.close();
        await server.close();
      }
    });
  }
});

describe("framingProblem", () => {
  const request = {
    method: "GET",
    url: "http://127.0.0.1:1/api/v3/historicalTrades?symbol=BTCUSDT",
    headers: {},
  };
  const answered = (status: number, msg?: string) => ({
    request,
    response: {
      status,
      headers: {},
      contentType: "application/json",
      bodyText: "",
      ...(msg === undefined ? {} : { json: { code: -1100, msg } }),
    },
  });
  const must = { status: 400, rule: "RFC 9112 §3.2" };
  it.each([
    {
      given: "two Host lines refused with 400",
      probe: { what: "x", must },
      exchange: answered(400, "Malformed request."),
      want: undefined,
    },
    {
      given: "two Host lines served",
      probe: { what: "x", must },
      exchange: answered(200),
      want: /status 200; RFC 9112 §3.2 says a server must answer it 400/,
    },
    { given: "no answer at all", probe: { what: "x", must }, exchange: { request }, want: /no answer/ },
    { given: "the key twice, served", probe: { what: "x" }, exchange: answered(200), want: undefined },
    {
      given: "the key twice, refused readably",
      probe: { what: "x" },
      exchange: answered(
        400,
        "Malformed request: the X-MBX-APIKEY header is sent 2 times; a request carries it once.",
      ),
      want: undefined,
    },
    {
      given: "the key twice, refused naming undefined",
      probe: { what: "x" },
      exchange: answered(
        400,
        "Malformed request: the undefined header is sent 2 times; a request carries it once.",
      ),
      want: /carries undefined/,
    },
    {
      given: "the key twice, a server error",
      probe: { what: "x" },
      exchange: answered(500),
      want: /server error/,
    },
  ])("$given", ({ probe, exchange, want }) => {
    const problem = framingProblem(probe, exchange as never);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
