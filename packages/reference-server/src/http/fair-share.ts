/**
 * Fair shares of the event loop: work that waits is taken client address by client address, and
 * within an address connection by connection, so that an address opening hundreds of connections
 * gets the same share as one with a single connection, and each turn of the event loop does a
 * bounded amount of it (backpressure.ts says how much).
 */

/** Items kept by client address, taken one at a time, address after address, each address's in order. */
export class RoundRobin<T> {
  /** In turn order: an address that was served moves to the back (a Map keeps insertion order). */
  private readonly byAddress = new Map<string, T[]>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(address: string, item: T): void {
    const queue = this.byAddress.get(address);
    if (queue === undefined) this.byAddress.set(address, [item]);
    else queue.push(item);
    this.count += 1;
  }

  /** The first item of the address whose turn it is; that address then goes to the back. */
  shift(): T | undefined {
    for (const [address, queue] of this.byAddress) {
      this.byAddress.delete(address);
      const item = queue.shift() as T;
      if (queue.length > 0) this.byAddress.set(address, queue);
      this.count -= 1;
      return item;
    }
    return undefined;
  }
}
