/** The reference server for the tests: started in this process with its demo account. */
import { type EmbeddedServer, startEmbeddedServer } from "../../src/embedded.js";

export type TestServer = EmbeddedServer;

export function startReferenceServer(): Promise<TestServer> {
  return startEmbeddedServer();
}
