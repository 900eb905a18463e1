/**
 * The embedded default target: the reference server started in this process on 127.0.0.1 with
 * its demo account, and a second account of random credentials. It is loaded only when needed, so testing a remote server does not load it.
 */
import { randomBytes } from "node:crypto";
import type { Credentials } from "./http/request.js";

export interface EmbeddedServer {
  url: string;
  credentials: Credentials;
  /** A second account of the same server (the isolation between accounts is judged with it). */
  second: Credentials;
  close(): Promise<void>;
}

export async function startEmbeddedServer(): Promise<EmbeddedServer> {
  const { startServer } = await import("@marketapi/reference-server");
  const second = {
    apiKey: `embedded-second-${randomBytes(8).toString("hex")}`,
    apiSecret: randomBytes(16).toString("hex"),
  };
  const server = await startServer({ port: 0, host: "127.0.0.1", ...second });
  return {
    url: server.url,
    credentials: { apiKey: server.demo.apiKey, apiSecret: server.demo.apiSecret },
    second,
    close: () => server.close(),
  };
}
