/**
 * Bounded work per connection. A client that pipelines requests and does not read the answers must
 * not make the server build answers nobody takes: once a connection has `maxQueuedBytesPerConnection`
 * of answers not yet handed to the network (or all connections together `maxQueuedBytes`), its
 * further requests wait, unanswered and unparsed beyond what Node has already read, until the
 * client reads. Node stops reading from a socket whose writes are not drained, so what waits is at
 * most what one read brought; a connection with more than `maxWaitingRequests` waiting (or when
 * all connections together have `maxWaitingRequestsTotal`) is dropped. A connection whose answer
 * closes it (a ban, 418; a refusal) gets nothing more: its further requests are dropped unread.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface BackpressureLimits {
  /** Bytes of answers one connection may have waiting to be sent before its requests wait. */
  maxQueuedBytesPerConnection: number;
  /** Bytes of answers all connections together may have waiting to be sent. */
  maxQueuedBytes: number;
  /** Requests one connection may have waiting for its answers to drain; more drop the connection. */
  maxWaitingRequests: number;
  /**
   * How long a client may take to accept a whole answer before its connection is dropped (none
   * when absent). Kept here rather than in a listener of its own: the answer is watched anyway.
   */
  sendTimeoutMs?: number;
}

/** Requests waiting on all connections together; more drop the connection that adds one. */
const WAITING_PER_BYTES_BUDGET = 4096;

/**
 * Requests one connection may have being served at once (answered but not yet handed to the
 * network counts): a client pipelining thousands of requests into large kernel buffers is served
 * a few at each turn of the event loop, between everyone else's requests, instead of all at once.
 */
const SERVED_AT_ONCE_PER_CONNECTION = 16;

interface Connection {
  /** Bytes of answers written but not yet handed to the network. */
  queuedBytes: number;
  /** Requests being served or answered, not yet handed to the network. */
  serving: number;
  waiting: [IncomingMessage, ServerResponse][];
  /** Closed, or being closed: later requests get nothing. */
  done: boolean;
  socket?: Socket;
}

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

function isFinished(socket: Socket): boolean {
  return (socket as Socket & { [FINISHED]?: true })[FINISHED] === true;
}

export class AnswerBudget {
  private queuedBytes = 0;
  private waitingTotal = 0;
  /** Where each socket keeps its Connection for this budget (on the socket: no WeakMap lookup per request). */
  private readonly connectionKey = Symbol("marketapi.answerBudget");
  /** Connections that wait for the total to drop below `maxQueuedBytes`. */
  private readonly blocked = new Set<Connection>();
  private readonly maxWaitingTotal: number;

  /** `reading`: Node's hooks where the socket has them (the default), or PUBLIC_READING alone. */
  constructor(
    private readonly limits: BackpressureLimits,
    private readonly reading: ReadingControl = NODE_READING,
  ) {
    this.maxWaitingTotal = Math.max(
      limits.maxWaitingRequests,
      Math.ceil(limits.maxQueuedBytes / WAITING_PER_BYTES_BUDGET),
    );
  }

  /** Bytes of answers waiting to be sent, over all connections. */
  get queued(): number {
    return this.queuedBytes;
  }

  /** Requests waiting for their connection's answers to drain, over all connections. */
  get waiting(): number {
    return this.waitingTotal;
  }

  guard(listener: RequestListener): RequestListener {
    const serve = (req: IncomingMessage, res: ServerResponse, connection: Connection) => {
      this.track(req, res, connection);
      listener(req, res);
    };
    this.serve = serve;
    return (req, res) => {
      const socket = req.socket;
      if (isFinished(socket) || socket.destroyed) return;
      const connection = this.connectionOf(socket);
      if (connection.done) return;
      if (connection.waiting.length === 0 && !this.full(connection)) {
        serve(req, res, connection);
        return;
      }
      if (
        connection.waiting.length >= this.limits.maxWaitingRequests ||
        this.waitingTotal >= this.maxWaitingTotal
      ) {
        // Far ahead of its answers and not reading them: not worth a single byte more.
        this.drop(socket, connection);
        return;
      }
      connection.waiting.push([req, res]);
      this.waitingTotal += 1;
      this.reading.pause(socket);
      if (!this.fullOnItsOwn(connection)) this.blocked.add(connection);
    };
  }

  private serve: (req: IncomingMessage, res: ServerResponse, connection: Connection) => void = () =>
    undefined;

  private connectionOf(socket: Socket): Connection {
    const holder = socket as Socket & { [key: symbol]: Connection | undefined };
    let connection = holder[this.connectionKey];
    if (connection) return connection;
    const created: Connection = { queuedBytes: 0, serving: 0, waiting: [], done: false, socket };
    holder[this.connectionKey] = created;
    socket.once("close", () => this.forget(created));
    connection = created;
    return connection;
  }

  private fullOnItsOwn(connection: Connection): boolean {
    return (
      connection.queuedBytes >= this.limits.maxQueuedBytesPerConnection ||
      connection.serving >= SERVED_AT_ONCE_PER_CONNECTION
    );
  }

  private full(connection: Connection): boolean {
    return (
      this.fullOnItsOwn(connection) ||
      (connection.queuedBytes > 0 && this.queuedBytes >= this.limits.maxQueuedBytes)
    );
  }

  /**
   * Counts the answer's bytes from the moment it is written until the network has taken it, and
   * drops a client that does not take it within the send timeout. One listener per event: each
   * comes once per answer, and `on` (not `once`) allocates no wrapper.
   */
  private track(req: IncomingMessage, res: ServerResponse, connection: Connection): void {
    connection.serving += 1;
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      connection.serving -= 1;
      if (connection.done) return;
      connection.queuedBytes -= bytes;
      this.queuedBytes -= bytes;
      this.resume(connection);
    };
    res.on("finish", settle);
    res.on("close", settle);
    res.on("prefinish", () => {
      // What of this answer, headers included, the network has not taken yet: its socket's
      // unsent bytes (the answer before it on the socket has finished, so none are its), or,
      // queued behind another answer, all of it. Not Content-Length: headers given to writeHead
      // alone are not visible to getHeader, which made every answer count as the same 320 bytes.
      bytes = res.writableLength;
      connection.queuedBytes += bytes;
      this.queuedBytes += bytes;
      // Nothing left in the socket's buffer: the kernel took the whole answer, the usual case
      // (checked first because a timer per answer costs more than the rest of a small read).
      const sendTimeoutMs = this.limits.sendTimeoutMs;
      if (sendTimeoutMs !== undefined && !(res.writableFinished || res.socket?.writableLength === 0)) {
        // Written but not yet handed to the network: the client is not reading.
        timer = setTimeout(() => res.socket?.destroy(), sendTimeoutMs);
        timer.unref();
      }
      if (res.statusCode === 418 || isClosing(res)) {
        // Banned or told to go: one answer, and nothing of what follows is served.
        connection.done = true;
        this.clearWaiting(connection);
        markFinished(req.socket, this.reading);
      }
      // A banned client that does not even take its 418 is not kept waiting for.
      if (res.statusCode === 418) setImmediate(() => res.writableFinished || req.socket.destroy());
    });
  }

  /** Serves waiting requests while the budget allows. */
  private resume(connection: Connection): void {
    this.serveWaiting(connection);
    if (this.queuedBytes >= this.limits.maxQueuedBytes) return;
    for (const other of this.blocked) {
      this.serveWaiting(other);
      if (this.queuedBytes >= this.limits.maxQueuedBytes) return;
    }
  }

  private serveWaiting(connection: Connection): void {
    while (!connection.done && connection.waiting.length > 0 && !this.full(connection)) {
      const [req, res] = connection.waiting.shift() as [IncomingMessage, ServerResponse];
      this.waitingTotal -= 1;
      if (req.destroyed || res.destroyed) continue;
      this.serve(req, res, connection);
    }
    if (connection.waiting.length === 0) {
      this.blocked.delete(connection);
      if (connection.socket) this.reading.resume(connection.socket);
    }
  }

  private drop(socket: Socket, connection: Connection): void {
    markFinished(socket, this.reading);
    this.forget(connection);
    socket.destroy();
  }

  private clearWaiting(connection: Connection): void {
    this.waitingTotal -= connection.waiting.length;
    connection.waiting = [];
    this.blocked.delete(connection);
  }

  /** The connection closed: its answers are no longer anyone's to send. */
  private forget(connection: Connection): void {
    if (connection.done && connection.queuedBytes === 0 && connection.waiting.length === 0) return;
    connection.done = true;
    this.queuedBytes -= connection.queuedBytes;
    connection.queuedBytes = 0;
    this.clearWaiting(connection);
  }
}

function isClosing(res: ServerResponse): boolean {
  return String(res.getHeader("connection") ?? "").toLowerCase() === "close";
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
