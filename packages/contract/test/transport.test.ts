// The tester's transport against a server that closes connections without an answer: a GET or
// HEAD whose connection closed before its answer is sent once more; an order (POST) or a cancel
// (DELETE) never is; a server that closes every try is still a reset, after two tries.
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { send } from "../src/http/transport.js";

const ok = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";

/**
 * A server that closes the connection, unanswered, on the requests `closes` says (counted over all
 * connections from 1), and answers the others: the close of a kept connection as a request is put
 * on it, the way a client meets it, whichever connection the client picks.
 */
async function closingOn(closes: (n: number) => boolean) {
  const methods: string[] = [];
  const server = createServer((socket: Socket) => {
    socket.on("data", (chunk) => {
      for (const head of chunk.toString("latin1").matchAll(/^([A-Z]+) [^\r\n]*\r\n/gm)) {
        methods.push(head[1] ?? "");
        if (closes(methods.length)) socket.destroy();
        else socket.write(ok);
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/api/v3/ping`, methods };
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe("send, when the server closes the connection before an answer", () => {
  const second = (n: number) => n === 2;
  const always = () => true;
  const cases = [
    { given: "a GET, closed once", method: "GET", closes: second, want: { ok: true, tries: 2 } },
    { given: "a HEAD, closed once", method: "HEAD", closes: second, want: { ok: true, tries: 2 } },
    {
      given: "a POST (an order), closed once",
      method: "POST",
      closes: second,
      want: { ok: false, tries: 1 },
    },
    {
      given: "a DELETE (a cancel), closed once",
      method: "DELETE",
      closes: second,
      want: { ok: false, tries: 1 },
    },
    { given: "a GET, closed every time", method: "GET", closes: always, want: { ok: false, tries: 2 } },
  ];
  it.each(cases)("$given", async ({ method, closes, want }) => {
    const target = await closingOn(closes);
    const first = await send({ method: "GET", url: target.url, headers: {} }, 5000);
    expect(first.ok).toBe(!closes(1));
    const before = target.methods.length;
    const result = await send({ method, url: target.url, headers: {} }, 5000);
    expect(result.ok).toBe(want.ok);
    if (!result.ok) expect(result.error.kind).toBe("reset");
    expect(target.methods.slice(before)).toEqual(Array(want.tries).fill(method));
  });
});

/** A server that writes `reply` to the first request of each connection, then destroys the socket. */
async function replyingThenClosing(reply: string) {
  const server = createServer((socket: Socket) => {
    socket.once("data", () => socket.end(reply, () => socket.destroy()));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  servers.push(server);
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}/api/v3/ping`;
}

describe("send, when the answer and the connection end oddly", () => {
  const head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n";
  const cases = [
    {
      given: "a body cut short of its Content-Length",
      method: "POST",
      reply: `${head}{"a":`,
      want: { ok: false, kind: "reset" },
    },
    {
      given: "a whole answer, then bytes no request asked for",
      method: "POST",
      reply: `${head}{"a":"bc"}HTTP/1.1 200 OK\r\nbogus`,
      want: { ok: true, body: '{"a":"bc"}' },
    },
    {
      given: "a HEAD answer followed by a body",
      method: "HEAD",
      reply: `${head}{"a":"bc"}`,
      want: { ok: true, body: "" },
    },
  ];
  it.each(cases)("$given", async ({ method, reply, want }) => {
    const url = await replyingThenClosing(reply);
    // The send's timeout is longer than the test's: an answer that waits for it fails the test.
    const result = await send({ method, url, headers: {} }, 60_000);
    expect(result.ok).toBe(want.ok);
    if (result.ok) expect(result.response.bodyText).toBe(want.body);
    else expect(result.error.kind).toBe(want.kind);
  });
});
