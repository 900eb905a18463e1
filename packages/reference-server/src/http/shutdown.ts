/**
 * A clean stop: from the moment the server starts closing, every new request (also one arriving on
 * an open keep-alive connection) is answered 503 with `Connection: close` and changes nothing;
 * requests already being served finish, their answers closing the connection too.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

export const SHUTTING_DOWN_MSG =
  "The server is shutting down and takes no new requests; nothing was changed. Send the request again once it is back.";

export class ShutdownGate {
  private stopping = false;
  /** Requests not yet answered when their listener returned (waiting for a body, a commit, a turn). */
  private readonly unanswered = new Set<ServerResponse>();
  private onSettled: () => void = () => undefined;

  get closing(): boolean {
    return this.stopping;
  }

  /** `listener`, with new requests refused once `close` was called. */
  guard(listener: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      if (this.stopping) {
        refuseWhileStopping(res);
        return;
      }
      let open = true;
      let tracked = false;
      const settled = () => {
        if (!open) return;
        open = false;
        if (tracked) this.unanswered.delete(res);
        if (this.stopping) this.onSettled();
      };
      // An answer queued behind others on a connection that closes emits no "close"; its request does.
      // `on`, not `once` (no wrapper per request): "close" comes once, and `settled` runs once.
      res.on("close", settled);
      req.on("close", settled);
      listener(req, res);
      // Only an answer still to be written can be told to close its connection. Most are written
      // by now, and are not put in the set: a set holding each response for a turn of the event
      // loop makes every young-generation collection several times as costly.
      if (open && !res.headersSent) {
        tracked = true;
        this.unanswered.add(res);
      }
    };
  }

  /**
   * Refuses new requests from now on; answers still to come close their connections.
   * `onSettled` runs each time an in-flight request ends (connections may have become idle).
   */
  close(onSettled: () => void): void {
    this.stopping = true;
    this.onSettled = onSettled;
    for (const res of this.unanswered) {
      if (!res.headersSent && !res.destroyed) res.setHeader("Connection", "close");
    }
  }
}

function refuseWhileStopping(res: ServerResponse): void {
  const body = JSON.stringify({ code: -1001, msg: SHUTTING_DOWN_MSG });
  res.writeHead(503, {
    "Content-Type": "application/json;charset=UTF-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Retry-After": "1",
    Connection: "close",
  });
  res.end(body);
}
