import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A test server's async request handler whose failure drops its connection, as a proxy whose
 * upstream failed would (the reference server closed while a request the tester gave up on was
 * still on its way), instead of leaving the rejection unhandled in the test process.
 */
export function dropOnFailure(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    Promise.resolve(handler(req, res)).catch(() => res.destroy());
  };
}
