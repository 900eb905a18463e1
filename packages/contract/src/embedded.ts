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

interface StartedServer {
  url: string;
  close(): Promise<void> | void;
  demo: { apiKey: string; apiSecret: string };
}

type StartServer = (options: { port: number; host?: string }) => Promise<StartedServer>;

export async function startEmbeddedServer(): Promise<EmbeddedServer> {
  // A computed specifier: the package is only needed (and only loaded) for the embedded target.
  const specifier = "@marketapi/reference-server";
  const module = (await import(specifier)) as { startServer?: StartServer };
  if (typeof module.startServer !== "function") {
    throw new Error(
      "@marketapi/reference-server does not export startServer; build it first (npx turbo run build)",
    );
  }
  const server = await module.startServer({ port: 0, host: "127.0.0.1" });
  return {
    url: server.url,
    credentials: { apiKey: server.demo.apiKey, apiSecret: server.demo.apiSecret },
    close: async () => {
      await server.close();
    },
  };
}
