/**
 * Holds new requests while the server swaps its state (the sandbox's restore and reset with a state
 * database): a request that arrives meanwhile waits, and is served, in arrival order, once the swap
 * is over, against the state it brought back.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";

export class RequestHold {
  private held: (() => void)[] | undefined;

  /** `listener`, with requests held while `during` runs. */
  guard(listener: RequestListener): RequestListener {
    return (req: IncomingMessage, res: ServerResponse) => {
      if (this.held) this.held.push(() => listener(req, res));
      else listener(req, res);
    };
  }

  /** Runs `work` with new requests held; they are served once it settles, whichever way. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    if (this.held) throw new Error("requests are held already");
    this.held = [];
    try {
      return await work();
    } finally {
      const held = this.held;
      this.held = undefined;
      for (const serve of held) serve();
    }
  }
}
