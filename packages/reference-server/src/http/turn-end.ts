/**
 * Answers written together at the end of the event loop's turn, rather than each as soon as it is
 * ready. A client waiting on a local socket sleeps until its answer arrives, and the write that
 * wakes it costs the kernel a wake-up (on a virtual machine an interrupt to another CPU): under
 * load that was the largest single cost of an order served from memory. Written one after another,
 * the answers of a turn find their clients awake after the first.
 *
 * Only a connection's one answer of the turn waits: a client that pipelines requests is awake
 * anyway, and answers held back would count against its connection's budget (backpressure.ts), as
 * would the later answers Node queues behind them; so any other answer on that connection, held or
 * not, writes the waiting ones first (writeWaitingOn). Nothing waits longer
 * than the turn, and a turn with many answers writes every MOST_WAITING of them at once.
 */
import type { Socket } from "node:net";

// Sockets are the requests' (req.socket): a response queued behind another on its connection has
// no socket of its own until that one is written.

/** Answers that wait at most, so none waits for more than this many requests' work. */
const MOST_WAITING = 64;

let waiting: (() => void)[] = [];
const waitingOn = new Set<Socket>();
let scheduled = false;
/** Other work for the end of this turn (the answer budget's), run before the answers are written. */
let atEnd: (() => void)[] = [];

/**
 * Runs `work` at the end of this turn, in the same callback as the answers written then (one
 * setImmediate a turn for both), before them, so that answers it makes go out with them.
 */
export function atTurnEnd(work: () => void): void {
  atEnd.push(work);
  schedule();
}

function schedule(): void {
  if (!scheduled) {
    scheduled = true;
    setImmediate(endOfTurn);
  }
}

/**
 * Runs `write`, which writes one answer on `socket` and never throws, at the end of this turn, or
 * now (after the answers waiting) when the socket has an answer waiting already.
 */
export function writeAtTurnEnd(socket: Socket, write: () => void): void {
  if (waitingOn.has(socket)) {
    writeWaiting();
    write();
    return;
  }
  waiting.push(write);
  waitingOn.add(socket);
  if (waiting.length >= MOST_WAITING) {
    writeWaiting();
    return;
  }
  schedule();
}

/** Writes the waiting answers now when one of them is on `socket` (called before any other answer on it). */
export function writeWaitingOn(socket: Socket): void {
  if (waitingOn.has(socket)) writeWaiting();
}

function endOfTurn(): void {
  scheduled = false;
  const work = atEnd;
  atEnd = [];
  for (const run of work) run();
  writeWaiting();
}

function writeWaiting(): void {
  const writes = waiting;
  waiting = [];
  waitingOn.clear();
  for (const write of writes) write();
}
