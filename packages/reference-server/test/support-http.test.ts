// The tests' own HTTP helper: a request sent on a keep-alive socket that the server closed while it
// was idle is sent once more on a new connection (the race that failed one-writer.test.ts when a
// test waited past the server's keep-alive time); a connection closed on a request's first sending
// stays an error, so no test is shielded from a server that drops requests.
import { once } from "node:events";
import { Agent } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { send } from "./support/http.js";

const ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";

/** A server that answers a connection's first `answered` requests and closes it on the next. */
async function closingAfter(
  answered: number,
): Promise<{ url: string; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket: Socket) => {
    connections += 1;
    let requests = 0;
    socket.on("data", (chunk) => {
      for (const _ of chunk.toString("latin1").matchAll(/\r\n\r\n/g)) {
        requests += 1;
        if (requests > answered) socket.destroy();
        else socket.write(ok);
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server, connections: () => connections };
}

const servers: Server[] = [];
const agents: Agent[] = [];
afterEach(() => {
  for (const agent of agents.splice(0)) agent.destroy();
  for (const server of servers.splice(0)) server.close();
});

describe("send", () => {
  it("sends a request again on a new connection when its reused socket was closed while idle", async () => {
    const target = await closingAfter(1);
    servers.push(target.server);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    expect((await send(target.url, { path: "/first" }, agent)).text).toBe("ok");
    const second = await send(target.url, { path: "/second" }, agent);
    expect(second.text).toBe("ok");
    expect(target.connections()).toBe(2);
  });

  it("leaves a connection closed on a request's first sending an error, sent once", async () => {
    const target = await closingAfter(0);
    servers.push(target.server);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    await expect(send(target.url, { path: "/dropped" }, agent)).rejects.toThrow(/socket hang up/);
    expect(target.connections()).toBe(1);
  });
});
