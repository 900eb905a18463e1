// The pipelining attack of a client that never reads: many connections from several loopback
// addresses, each sending thousands of requests in one go and reading none of the answers.
import { connect, type Socket } from "node:net";

export interface AttackOptions {
  connections: number;
  requestsPerConnection: number;
  /** Loopback source addresses, used in turn (127.0.0.1, 127.0.0.2, ...). */
  addresses: readonly string[];
  /** Request target; default the exchange information (a large answer). */
  target?: string;
}

export interface Attack {
  /** Connections the server accepted (their requests are all written). */
  readonly sockets: readonly Socket[];
  /** Closes every attacking connection; resolves once all are closed. */
  stop(): Promise<void>;
}

export async function pipeliningAttack(baseUrl: string, options: AttackOptions): Promise<Attack> {
  const { hostname, port } = new URL(baseUrl);
  const target = options.target ?? "/api/v3/exchangeInfo";
  const burst = `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(options.requestsPerConnection);
  const sockets = await Promise.all(
    Array.from(
      { length: options.connections },
      (_, i) =>
        new Promise<Socket>((resolve) => {
          const localAddress = options.addresses[i % options.addresses.length];
          const socket = connect({ port: Number(port), host: hostname, localAddress }, () => {
            socket.write(burst);
            resolve(socket);
          });
          socket.pause(); // never reads an answer
          socket.on("error", () => resolve(socket));
        }),
    ),
  );
  return {
    sockets,
    stop: () =>
      Promise.all(
        sockets.map(
          (socket) =>
            new Promise<void>((resolve) => {
              if (socket.destroyed) resolve();
              else {
                socket.once("close", () => resolve());
                socket.destroy();
              }
            }),
        ),
      ).then(() => undefined),
  };
}

/** Resident set size and its peak so far of a process (Linux /proc), in bytes. */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const { readFile } = await import("node:fs/promises");
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
}
