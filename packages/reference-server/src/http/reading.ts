/**
 * Stopping and restarting the reading of a connection, stopping the parsing of one answered for
 * good, and closing one that holds many parsed requests without paying for a stack trace each.
 */
import type { Socket } from "node:net";

/**
 * Set on sockets refused or closing: requests Node still parses from them are dropped unanswered.
 * A mark on the socket itself (read with every request) rather than a WeakSet to look it up in.
 */
const FINISHED = Symbol("marketapi.answeredForGood");

/** Marks a socket as answered for good: whatever it sends next is dropped unread. */
export function markFinished(socket: Socket, reading: ReadingControl = NODE_READING): void {
  (socket as Socket & { [FINISHED]?: true })[FINISHED] = true;
  reading.stopParsing(socket);
}

export function isFinished(socket: Socket): boolean {
  return (socket as Socket & { [FINISHED]?: true })[FINISHED] === true;
}

/**
 * Destroys a socket whose requests nobody will answer. When it closes, Node's http server destroys
 * each request it still holds with an ECONNRESET error, and reads that error's stack at once
 * (streams' destroy does, against a V8 leak): a pipelining client dropped with some 60 requests
 * parsed cost about as much in stack traces as in everything else it made the server do. Nobody
 * listens for those errors, so their stacks are left empty, for this socket's "close" alone.
 */
export function closeQuietly(socket: Socket): void {
  if (socket.destroyed) return;
  let kept: number | undefined;
  const restore = () => {
    if (kept === undefined) return;
    Error.stackTraceLimit = kept;
    kept = undefined;
  };
  socket.prependOnceListener("close", () => {
    kept = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    // Should a "close" listener throw, the limit still comes back before anything else runs.
    queueMicrotask(restore);
  });
  socket.once("close", restore);
  socket.destroy();
}

/**
 * How the budget stops and restarts reading a connection, and stops parsing one it has answered
 * for good. Node's http server has hooks for both (below), and Node 20, 22 and 24 keep them; they
 * are internals, so each socket is checked for them, and a socket without them is handled through
 * the socket's public pause() and resume() alone (see PUBLIC_READING).
 */
export interface ReadingControl {
  /** Stops reading the socket while requests wait. */
  pause(socket: Socket): void;
  /** Reads again once nothing waits (never while Node itself waits for the answers to drain). */
  resume(socket: Socket): void;
  /** Parses nothing more of what the client sent: it has had its last answer. */
  stopParsing(socket: Socket): void;
}

/**
 * Node's http server stops reading a socket whose answers are not drained, and reads again once
 * they are (`socket._paused`, checked after each parsed chunk; the parser is paused with it).
 * Requests that wait here produce no answer bytes, so Node would go on reading: the same flag makes
 * it stop, and resuming mirrors Node's own resume once nothing waits any more.
 */
interface HttpSocket {
  _paused?: boolean;
  parser?: { pause(): void; resume(): void; onIncoming?: unknown } | null;
}

/** Whether Node tracks the socket's reading with `_paused` (it sets the flag on every connection it serves). */
function hasPausedFlag(socket: Socket): boolean {
  return typeof (socket as Socket & HttpSocket)._paused === "boolean";
}

/** Whether the socket's HTTP parser hands each request to a replaceable `onIncoming`. */
function hasIncomingHook(socket: Socket): boolean {
  return typeof (socket as Socket & HttpSocket).parser?.onIncoming === "function";
}

/** Sockets this module paused through the public API, so that a late 'drain' resumes only those. */
const pausedHere = new WeakSet<Socket>();
/** Sockets with a 'drain' listener of this module already waiting. */
const drainAwaited = new WeakSet<Socket>();

/**
 * The fallback: the socket's public pause() and resume(). Node then goes on parsing what it has
 * already read (at most one read, up to 64 kB), and those requests wait here or are dropped, as
 * the budget's caps say. Node also resumes a socket itself when it consumes a served request
 * (unless `_paused` is set), so on this path a pause holds less firmly: while answers are not
 * taken, nothing is served and nothing resumes it, and the waiting cap still bounds the work.
 */
export const PUBLIC_READING: ReadingControl = {
  pause(socket) {
    pausedHere.add(socket);
    socket.pause();
  },
  resume(socket) {
    if (!pausedHere.has(socket) || socket.destroyed) return;
    if (socket.writableNeedDrain) {
      // Nobody else resumes a socket paused here: read again once the answers have drained.
      if (drainAwaited.has(socket)) return;
      drainAwaited.add(socket);
      socket.once("drain", () => {
        drainAwaited.delete(socket);
        PUBLIC_READING.resume(socket);
      });
      return;
    }
    pausedHere.delete(socket);
    socket.resume();
  },
  stopParsing(socket) {
    // What is already read is still parsed; its requests are dropped unanswered (`markFinished`).
    pausedHere.delete(socket);
    socket.pause();
  },
};

/** Node's own hooks, on a socket that has them; the public API for what it lacks. */
export const NODE_READING: ReadingControl = {
  pause(socket) {
    if (!hasPausedFlag(socket)) return PUBLIC_READING.pause(socket);
    const http = socket as Socket & HttpSocket;
    if (http._paused) return;
    http._paused = true;
    socket.pause();
  },
  resume(socket) {
    if (!hasPausedFlag(socket)) return PUBLIC_READING.resume(socket);
    const http = socket as Socket & HttpSocket;
    if (!http._paused || socket.destroyed || socket.writableNeedDrain) return;
    http._paused = false;
    http.parser?.resume();
    socket.resume();
  },
  /**
   * Node parses a whole chunk read from a socket (up to 64 kB: over a thousand small pipelined
   * requests) even when the socket is destroyed after the first of them. Answering "upgrade" (2) to
   * the parser's next message makes it stop there, so a dropped or banned client's remaining
   * requests cost nothing.
   */
  stopParsing(socket) {
    if (!hasIncomingHook(socket)) return PUBLIC_READING.stopParsing(socket);
    const parser = (socket as Socket & HttpSocket).parser;
    if (parser) parser.onIncoming = () => 2;
  },
};
