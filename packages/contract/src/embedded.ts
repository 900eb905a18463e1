/**
 * The embedded default target: the reference server started in this process on 127.0.0.1 with
 * its demo account. It is loaded only when needed, so testing a remote server does not load it.
 */
import type { Credentials } from "./http/request.js";

export interface EmbeddedServer {
  url: string;
  credentials: Credentials;
  close(): Promise<void>;
}

export async function startEmbeddedServer(): Promise<EmbeddedServer> {
  const { startServer } = await import("@marketapi/reference-server");
  const server = await startServer({ port: 0, host: "127.0.0.1" });
  return {
    url: server.url,
    credentials: { apiKey: server.demo.apiKey, apiSecret: server.demo.apiSecret },
    close: () => server.close(),
  };
}
