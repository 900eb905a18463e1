// not_a_server_error on requests pipelined on one connection: the framing of the answers and the
// judgement as given/want, then server_time and ping written together to the reference server (both
// answered, in order) and to one that leaves the second unanswered with the connection open.
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PipelinedExpectation, pipelineProblems } from "../src/checks/not-a-server-error.js";
import { type PipelinedResult, parseAnswers, pipelinedBytes } from "../src/http/pipelined.js";
import { reportText } from "../src/report/text.js";
import { connectionFaults, startConnectionProxy } from "./support/connection-faults.js";
import { runContract } from "./support/run.js";

const http = (status: number, body: string, extra = "") =>
  `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe("parseAnswers", () => {
  const cases: Array<{ given: string; bytes: string; closed: boolean; want: Array<[number, string]> }> = [
    {
      given: "two answers by Content-Length",
      bytes: http(200, '{"serverTime":1}') + http(200, "{}"),
      closed: false,
      want: [
        [200, '{"serverTime":1}'],
        [200, "{}"],
      ],
    },
    {
      given: "the second not yet whole",
      bytes: http(200, "{}") + http(200, "{}").slice(0, -1),
      closed: false,
      want: [[200, "{}"]],
    },
    {
      given: "a chunked answer",
      bytes:
        'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n":1}\r\n0\r\n\r\n' +
        http(200, "{}"),
      closed: false,
      want: [
        [200, '{"a":1}'],
        [200, "{}"],
      ],
    },
    {
      given: "an interim 100 before the answer",
      bytes: "HTTP/1.1 100 Continue\r\n\r\n" + http(200, "{}"),
      closed: false,
      want: [[200, "{}"]],
    },
    {
      given: "no length: runs to the close",
      bytes: "HTTP/1.1 200 OK\r\n\r\n{}",
      closed: true,
      want: [[200, "{}"]],
    },
    { given: "no length, still open", bytes: "HTTP/1.1 200 OK\r\n\r\n{}", closed: false, want: [] },
  ];
  for (const { given, bytes, closed, want } of cases) {
    it(given, () => {
      expect(parseAnswers(Buffer.from(bytes, "latin1"), closed).map((a) => [a.status, a.bodyText])).toEqual(
        want,
      );
    });
  }

  it("writes the requests back to back, the last closing the connection", () => {
    const request = {
      method: "GET",
      url: "http://127.0.0.1:9/api/v3/ping?x=1",
      headers: { accept: "application/json" },
    };
    expect(pipelinedBytes([request, request])).toBe(
      "GET /api/v3/ping?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\naccept: application/json\r\n\r\n" +
        "GET /api/v3/ping?x=1 HTTP/1.1\r\nHost: 127.0.0.1:9\r\naccept: application/json\r\nConnection: close\r\n\r\n",
    );
  });
});

describe("pipelineProblems", () => {
  const expected: PipelinedExpectation[] = [
    { what: "server_time", isItsAnswer: (b) => typeof b === "object" && b !== null && "serverTime" in b },
    { what: "ping", isItsAnswer: (b) => typeof b === "object" && b !== null && !("serverTime" in b) },
  ];
  const answer = (status: number, body: string) => ({ status, headers: {}, bodyText: body });
  const cases: Array<{ given: string; result: PipelinedResult; want: RegExp[] }> = [
    {
      given: "both answered, in order",
      result: { end: "answered", answers: [answer(200, '{"serverTime":1}'), answer(200, "{}")] },
      want: [],
    },
    {
      given: "the connection closed after the first (allowed)",
      result: { end: "closed", answers: [answer(200, '{"serverTime":1}')] },
      want: [],
    },
    {
      given: "the second left unanswered on an open connection",
      result: { end: "timeout", answers: [answer(200, '{"serverTime":1}')] },
      want: [/request 2 of 2 \(ping\).*no answer within 5000 ms while the connection stayed open/],
    },
    {
      given: "answers out of order",
      result: { end: "answered", answers: [answer(200, "{}"), answer(200, '{"serverTime":1}')] },
      want: [
        /answer 1 is not the answer to request 1 \(server_time\)/,
        /answer 2 is not the answer to request 2/,
      ],
    },
    {
      given: "a server error",
      result: { end: "answered", answers: [answer(200, '{"serverTime":1}'), answer(502, "")] },
      want: [/answer 2 \(to ping\): server error, status 502/],
    },
  ];
  for (const { given, result, want } of cases) {
    it(given, () => {
      const problems = pipelineProblems(expected, result, 5000);
      expect(problems).toHaveLength(want.length);
      for (const [i, pattern] of want.entries()) expect(problems[i]).toMatch(pattern);
    });
  }
});

describe("requests pipelined on one connection, end to end", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await server.close();
  });
  const run = (baseUrl: string, timeouts: { timeoutMs?: number } = {}) =>
    runContract({ baseUrl, only: ["not_a_server_error"], exploreBudget: 0, seed: 1, ...timeouts });

  it("the reference server answers both, in order", async () => {
    const result = await run(server.url);
    expect(result.exitCode, reportText(result, { color: false })).toBe(0);
  });

  for (const fault of connectionFaults()) {
    it(`catches ${fault.name}`, async () => {
      const proxy = await startConnectionProxy(server.url, fault);
      try {
        // The held request is seen unanswered when the per-request timeout ends.
        const result = await run(proxy.url, { timeoutMs: 2000 }); // time limit under test
        const explain = reportText(result, { color: false });
        expect(
          result.cells.filter((c) => c.status === "failed").map((c) => c.check),
          explain,
        ).toEqual(expect.arrayContaining(fault.caughtBy));
        expect(explain).toMatch(/got no answer within \d+ ms while (the|its) connection stayed open/);
      } finally {
        await proxy.close();
      }
    });
  }
});
