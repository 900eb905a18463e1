// Every answer in the API's shape, including those of the HTTP layer itself: raw requests on a
// socket (node:net) against the real server on 127.0.0.1, each row a request as it is written and
// the answer it must get: status, API code, and a body that is `{ code, msg }` and nothing else.
// The rows cover what Node's parser refuses (request line, headers, framing, sizes), what Node
// would answer itself (no Host, an unknown Expect) or drop (CONNECT), what it would take a guess
// on (a header a request carries once, carried twice), and what the API cannot read (another
// HTTP version, a transfer or content coding).

import { connect } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ empty: true });
});
afterAll(() => server.close());

const FORM = "Content-Type: application/x-www-form-urlencoded\r\n";
const ORDER = "POST /api/v3/order HTTP/1.1\r\nHost: x\r\n";

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `raw` on a new connection and reads answers until the server closes it or the answers
 * of `count` requests are complete; interim (1xx) answers are kept in `interim`.
 */
function exchange(
  raw: string | Buffer,
  count = 1,
  end = false,
): Promise<{ answers: Answer[]; interim: string[]; text: string }> {
  return new Promise((resolve) => {
    const socket = connect(server.port, "127.0.0.1", () => (end ? socket.end(raw) : socket.write(raw)));
    let text = "";
    const done = () => {
      socket.destroy();
      resolve({ ...parseAnswers(text), text });
    };
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (parseAnswers(text).answers.length >= count) done();
    });
    socket.on("close", done);
    socket.on("error", () => undefined);
  });
}

/** The complete answers in `text`, in order (an answer whose body has not all arrived is left out). */
function parseAnswers(text: string): { answers: Answer[]; interim: string[] } {
  const answers: Answer[] = [];
  const interim: string[] = [];
  let rest = text;
  for (;;) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd < 0) break;
    const [statusLine = "", ...lines] = rest.slice(0, headEnd).split("\r\n");
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (status < 200) {
      interim.push(statusLine);
      rest = rest.slice(headEnd + 4);
      continue;
    }
    const length = Number(headers["content-length"] ?? 0);
    if (rest.length < headEnd + 4 + length) break;
    answers.push({ status, headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return { answers, interim };
}

/** The API's error object: `{ code, msg }`, code a negative integer, msg a text, nothing else. */
function errorOf(answer: Answer): { code: number; msg: string } {
  expect(answer.headers["content-type"]).toBe("application/json;charset=UTF-8");
  const body = JSON.parse(answer.body) as { code: number; msg: string };
  expect(Object.keys(body).sort()).toEqual(["code", "msg"]);
  expect(Number.isInteger(body.code) && body.code < 0).toBe(true);
  expect(typeof body.msg === "string" && body.msg.length > 0).toBe(true);
  return body;
}

interface Row {
  given: string;
  raw: string | Buffer;
  /** The client closes its side after the request. */
  end?: boolean;
  want: { status: number; code: number; msg?: RegExp; headers?: Record<string, string> };
}

const gzippedForm = gzipSync("symbol=BTCUSDT&side=BUY");

const refused: Row[] = [
  // What Node's parser refuses.
  { given: "a request line that is not one", raw: "GARBAGE\r\n\r\n", want: { status: 400, code: -1100 } },
  {
    given: "a method the parser does not know",
    raw: "FOO /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n",
    want: { status: 400, code: -1100, msg: /Invalid method/ },
  },
  {
    given: "an HTTP version that does not exist",
    raw: "GET /api/v3/ping HTTP/9.9\r\nHost: x\r\n\r\n",
    want: { status: 400, code: -1100, msg: /version/i },
  },
  {
    given: "HTTP/2's connection preface",
    raw: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    want: { status: 400, code: -1020, msg: /HTTP\/2/ },
  },
  {
    given: "a NUL in the target",
    raw: "GET /api/v3/pi\u0000ng HTTP/1.1\r\nHost: x\r\n\r\n",
    want: { status: 400, code: -1100, msg: /url/ },
  },
  {
    given: "a control character in a header value",
    raw: "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n",
    want: { status: 400, code: -1100, msg: /header value/ },
  },
  {
    given: "a header name with a space",
    raw: "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n",
    want: { status: 400, code: -1100, msg: /header token/ },
  },
  {
    given: "a request that ends (the client closes) before its blank line",
    raw: "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n",
    end: true,
    want: { status: 400, code: -1100 },
  },
  {
    given: "a target over the header limit",
    raw: `GET /api/v3/depth?symbol=${"A".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    want: { status: 414, code: -1101, msg: /Request line too long; .*16384 bytes/ },
  },
  {
    given: "headers over the header limit",
    raw: `GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    want: { status: 431, code: -1101, msg: /headers too large/ },
  },
  {
    given: "a Content-Length that is not a number",
    raw: `${ORDER}${FORM}Content-Length: abc\r\n\r\n`,
    want: { status: 400, code: -1100, msg: /Content-Length/ },
  },
  {
    given: "two Content-Lengths",
    raw: `${ORDER}${FORM}Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd`,
    want: { status: 400, code: -1100, msg: /Content-Length/ },
  },
  {
    given: "Content-Length with Transfer-Encoding",
    raw: `${ORDER}${FORM}Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
    want: { status: 400, code: -1100, msg: /Content-Length/ },
  },
  {
    given: "a chunk size that is not hexadecimal",
    raw: `${ORDER}${FORM}Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    want: { status: 400, code: -1100, msg: /chunk size/ },
  },
  {
    given: "chunk extensions over the limit",
    raw: `${ORDER}${FORM}Transfer-Encoding: chunked\r\n\r\n3;${"a".repeat(20_000)}\r\nabc\r\n0\r\n\r\n`,
    want: { status: 413, code: -1101, msg: /[Cc]hunk extensions/ },
  },
  // What Node would answer itself, or drop.
  {
    given: "an HTTP/1.1 request without Host",
    raw: "GET /api/v3/ping HTTP/1.1\r\n\r\n",
    want: { status: 400, code: -1100, msg: /Host/ },
  },
  // A header a request carries once, carried twice: which one would count is a guess (Node keeps
  // the first Host and Content-Type and joins API keys), so the request is refused (RFC 9112 §3.2
  // for Host).
  {
    given: "two Host headers",
    raw: "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
    want: { status: 400, code: -1100, msg: /Host header.*2 times/ },
  },
  {
    given: "two Host headers of one value, in HTTP/1.0",
    raw: "GET /api/v3/ping HTTP/1.0\r\nHost: x\r\nhost: x\r\n\r\n",
    want: { status: 400, code: -1100, msg: /Host header.*2 times/ },
  },
  {
    given: "two Content-Type headers",
    raw: `${ORDER}${FORM}Content-Type: application/json\r\nContent-Length: 3\r\n\r\na=b`,
    want: { status: 400, code: -1100, msg: /Content-Type header.*2 times/ },
  },
  {
    given: "two X-MBX-APIKEY headers",
    raw: `${ORDER}X-MBX-APIKEY: a\r\nX-MBX-APIKEY: b\r\nContent-Length: 0\r\n\r\n`,
    want: { status: 400, code: -1100, msg: /X-MBX-APIKEY header.*2 times/ },
  },
  {
    given: "an Expect other than 100-continue",
    raw: `${ORDER}${FORM}Expect: something-else\r\nContent-Length: 3\r\n\r\na=b`,
    want: { status: 417, code: -1020, msg: /something-else/ },
  },
  {
    given: "CONNECT",
    raw: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    want: { status: 405, code: -1020, msg: /CONNECT/, headers: { allow: "DELETE, GET, POST" } },
  },
  // What the API cannot read.
  {
    given: "HTTP/2.0 on a request line",
    raw: "GET /api/v3/ping HTTP/2.0\r\nHost: x\r\n\r\n",
    want: { status: 400, code: -1020, msg: /HTTP\/2\.0 is not supported/ },
  },
  {
    given: "HTTP/0.9 (no version)",
    raw: "GET /api/v3/ping\r\n\r\n",
    want: { status: 400, code: -1020, msg: /HTTP\/0\.9 is not supported/ },
  },
  {
    given: "a transfer coding alone (not chunked)",
    raw: `${ORDER}${FORM}Transfer-Encoding: gzip\r\n\r\nabc`,
    want: { status: 415, code: -1130, msg: /Transfer-Encoding 'gzip'/ },
  },
  {
    given: "a transfer coding under chunked",
    raw: `${ORDER}${FORM}Transfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`,
    want: { status: 415, code: -1130, msg: /Transfer-Encoding 'gzip, chunked'/ },
  },
  ...["gzip", "deflate", "br", "zstd", "x-anything", "identity, gzip"].map(
    (coding): Row => ({
      given: `Content-Encoding: ${coding} on a plain body`,
      raw: `${ORDER}${FORM}Content-Encoding: ${coding}\r\nContent-Length: 3\r\n\r\na=b`,
      want: {
        status: 415,
        code: -1130,
        msg: new RegExp(`Content-Encoding '${coding}'`),
        headers: { "accept-encoding": "identity", connection: "close" },
      },
    }),
  ),
  {
    given: "Content-Encoding: gzip on a gzipped body",
    raw: Buffer.concat([
      Buffer.from(`${ORDER}${FORM}Content-Encoding: gzip\r\nContent-Length: ${gzippedForm.length}\r\n\r\n`),
      gzippedForm,
    ]),
    want: { status: 415, code: -1130, msg: /Content-Encoding 'gzip'/ },
  },
  {
    given: "a body over the limit",
    raw: `${ORDER}${FORM}Content-Length: 70000\r\n\r\n${"a".repeat(70_000)}`,
    want: { status: 400, code: -1101, msg: /65536 bytes/, headers: { connection: "close" } },
  },
];

describe("answers of the HTTP layer, each in the API's shape", () => {
  it.each(refused)("$given: $want.status $want.code", async ({ raw, end, want }) => {
    const { answers, text } = await exchange(raw, 1, end);
    expect(answers, text.slice(0, 300)).toHaveLength(1);
    const answer = answers[0] as Answer;
    expect(answer.status, text.slice(0, 300)).toBe(want.status);
    const body = errorOf(answer);
    expect(body.code).toBe(want.code);
    if (want.msg) expect(body.msg).toMatch(want.msg);
    for (const [name, value] of Object.entries(want.headers ?? {})) expect(answer.headers[name]).toBe(value);
    // Every answer carries the weight its address used, as the API's answers do.
    expect(answer.headers["x-mbx-used-weight-1m"]).toMatch(/^\d+$/);
  });
});

describe("100 Continue", () => {
  it("is not sent before a body over the limit is refused", async () => {
    // The client waits for 100 Continue before it sends the 10 MB.
    const { answers, interim, text } = await exchange(
      `${ORDER}${FORM}Expect: 100-continue\r\nContent-Length: 10000000\r\n\r\n`,
    );
    expect(interim).toEqual([]);
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(errorOf(answers[0] as Answer).code).toBe(-1101);
  });

  it("is not sent before a body in a content coding is refused", async () => {
    const { interim, answers } = await exchange(
      `${ORDER}${FORM}Expect: 100-continue\r\nContent-Encoding: gzip\r\nContent-Length: 30\r\n\r\n`,
    );
    expect(interim).toEqual([]);
    expect(answers[0]?.status).toBe(415);
  });

  it("is sent when the body is to be read, and the body is then read", async () => {
    const socket = connect(server.port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
    });
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    socket.write(`${ORDER}${FORM}Expect: 100-continue\r\nContent-Length: 3\r\n\r\n`);
    await until(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    expect(text).toBe("HTTP/1.1 100 Continue\r\n\r\n");
    socket.write("a=b");
    // The body was read: the answer is about the order's parameters (no API key here), not a timeout.
    await until(/\r\n\r\n\{.*\}$/s);
    const [answer] = parseAnswers(text).answers;
    expect(answer?.status).toBe(401);
    expect(errorOf(answer as Answer).code).toBe(-2014);
    socket.destroy();
  });
});

describe("requests that are not refused", () => {
  it.each([
    { given: "HTTP/1.0 without Host", raw: "GET /api/v3/ping HTTP/1.0\r\n\r\n", status: 200 },
    {
      given: "Content-Encoding: identity",
      raw: `${ORDER}${FORM}Content-Encoding: identity\r\nContent-Length: 3\r\n\r\na=b`,
      status: 401,
    },
    {
      given: "Content-Encoding: gzip with no body",
      raw: `${ORDER}${FORM}Content-Encoding: gzip\r\nContent-Length: 0\r\n\r\n`,
      status: 401,
    },
  ])("$given", async ({ raw, status }) => {
    const { answers } = await exchange(raw);
    expect(answers[0]?.status).toBe(status);
  });
});

describe("a malformed request pipelined behind others", () => {
  it("gets its refusal after the answers to the requests before it", async () => {
    const { answers } = await exchange(
      "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n" +
        "GET /api/v3/time HTTP/1.1\r\nHost: x\r\n\r\n" +
        `GET /api/v3/depth?symbol=${"A".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      3,
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 414]);
    expect(errorOf(answers[2] as Answer).code).toBe(-1101);
  });
});
