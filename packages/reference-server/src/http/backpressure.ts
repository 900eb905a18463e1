/**
 * Bounded and fairly shared work per connection.
 *
 * Bounded: a client that pipelines requests and does not read the answers must not make the server
 * build answers nobody takes. Once a connection has `maxQueuedBytesPerConnection` of answers not
 * yet handed to the network (or all connections together `maxQueuedBytes`), or 16 answers in
 * progress, its further requests wait, unanswered, and the server stops reading from it until they
 * are served; what waits is at most what one read brought. A connection with more than
 * `maxWaitingRequests` waiting (or when all connections together have a total derived from
 * `maxQueuedBytes`) is dropped, and what it pipelined beyond is not even parsed. A connection whose
 * answer closes it (a ban, 418; a refusal) gets nothing more: its further requests are dropped
 * unread.
 *
 * Fair: of what one read of a connection brings, the first request is served as soon as it is
 * parsed; the others wait (a read is told by the socket's byte count, so that nothing is scheduled
 * for a client that sends one request at a time). Waiting requests are served at the end of the
 * event loop's turn, client address after client address and connection after connection
 * (fair-share.ts), at most `requestsPerTurn` of them, and the rest at the ends of the turns after,
 * so that the sockets are read between every two such batches. What pipelining costs is bounded per client address too: Node parses the whole of
 * each read (up to 64 kB, a thousand small pipelined requests or more) up to the point where the
 * connection is dropped, so the connections of one address may have at most `waitingPerAddress`
 * requests waiting between them, and one that waited on a connection dropped unserved (its client
 * pipelined too far ahead and did not read, or went away) stays counted until the address earns it
 * back: each of its requests served from the waiting ones gives one back. Past that, a connection
 * of the address is dropped at its first request that would wait. While an address is in debt,
 * the first request of each read of its connections is served at the turn's end too, so that a
 * connection dropped in the same read costs its parsing and nothing more. A storm of connections
 * that each pipeline thousands of requests and never read then costs two parsed requests per
 * connection, not 66 (81 before any of this); a client that sends one request at a time is never
 * held back.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { RoundRobin } from "./fair-share.js";
import { closeQuietly, isFinished, markFinished, NODE_READING, type ReadingControl } from "./reading.js";
import { atTurnEnd } from "./turn-end.js";

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

/** How much of each turn of the event loop waiting work may take. */
export interface FairShareLimits {
  /** Waiting requests served in one turn, over all connections. */
  requestsPerTurn: number;
  /**
   * Requests the connections of one client address may have waiting; one that waited on a
   * connection dropped unserved counts until a request of the address served at once gives it back.
   * Default: four connections' `maxWaitingRequests`.
   */
  waitingPerAddress: number;
}

/** Waiting requests served per turn; an address's waiting requests are four connections' worth. */
export const DEFAULT_FAIR_SHARE: Readonly<Pick<FairShareLimits, "requestsPerTurn">> = Object.freeze({
  requestsPerTurn: 64,
});
const CONNECTIONS_WAITING_PER_ADDRESS = 4;

/** Requests waiting on all connections together; more drop the connection that adds one. */
const WAITING_PER_BYTES_BUDGET = 4096;

/**
 * Requests one connection may have being served at once (answered but not yet handed to the
 * network counts): a client pipelining thousands of requests into large kernel buffers is served
 * a few at each turn of the event loop, between everyone else's requests, instead of all at once.
 */
const SERVED_AT_ONCE_PER_CONNECTION = 16;

/** What the connections of one client address hold together. */
interface AddressShare {
  /** Connections open that the budget knows (those that sent a request). */
  open: number;
  /** Waiting requests the address may still add (see `waitingPerAddress`). */
  credits: number;
}

/**
 * Addresses remembered at most: past that the longest known is forgotten (and starts afresh), so
 * that clients on many addresses cannot grow the map without bound.
 */
const MOST_ADDRESSES = 16_384;

interface Connection {
  /** The client's address: shares are per address first. */
  readonly address: string;
  readonly share: AddressShare;
  readonly socket: Socket;
  /** Bytes of answers written but not yet handed to the network. */
  queuedBytes: number;
  /** Requests being served or answered, not yet handed to the network. */
  serving: number;
  waiting: [IncomingMessage, ServerResponse][];
  /** Closed, or being closed: later requests get nothing. */
  done: boolean;
  /** The socket's byte count when a request was last served as soon as it was parsed: its read. */
  servedAtByte: number;
  /** Listed to have its waiting requests served. */
  listed: boolean;
}

export class AnswerBudget {
  private queuedBytes = 0;
  private waitingTotal = 0;
  /** Where each socket keeps its Connection for this budget (on the socket: no WeakMap lookup per request). */
  private readonly connectionKey = Symbol("marketapi.answerBudget");
  /** Connections with requests waiting that may be served, in turn. */
  private readonly ready = new RoundRobin<Connection>();
  /** Connections that wait for the total to drop below `maxQueuedBytes`. */
  private readonly blocked = new Set<Connection>();
  private readonly maxWaitingTotal: number;
  private readonly share: FairShareLimits;
  private turnEndScheduled = false;
  /** By client address, while it has a connection open or requests not given back. */
  private readonly addresses = new Map<string, AddressShare>();

  /**
   * `reading`: Node's hooks where the socket has them (the default), or PUBLIC_READING alone.
   * `share`: how much of each turn waiting work may take (DEFAULT_FAIR_SHARE).
   */
  constructor(
    private readonly limits: BackpressureLimits,
    private readonly reading: ReadingControl = NODE_READING,
    share: Partial<FairShareLimits> = {},
  ) {
    this.maxWaitingTotal = Math.max(
      limits.maxWaitingRequests,
      Math.ceil(limits.maxQueuedBytes / WAITING_PER_BYTES_BUDGET),
    );
    this.share = {
      ...DEFAULT_FAIR_SHARE,
      waitingPerAddress: CONNECTIONS_WAITING_PER_ADDRESS * limits.maxWaitingRequests,
      ...share,
    };
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
      const read = socket.bytesRead;
      if (connection.waiting.length === 0 && connection.servedAtByte !== read && !this.full(connection)) {
        connection.servedAtByte = read;
        if (connection.share.credits >= this.share.waitingPerAddress) {
          serve(req, res, connection);
          return;
        }
        // An address in debt (requests waiting, or lost on connections dropped): served at the
        // turn's end, with the waiting ones, unless what its client pipelined behind it gets the
        // connection dropped first; then it costs nothing more than its parsing.
        connection.waiting.push([req, res]);
        this.waitingTotal += 1;
        this.list(connection);
        return;
      }
      if (
        connection.waiting.length >= this.limits.maxWaitingRequests ||
        this.waitingTotal >= this.maxWaitingTotal ||
        connection.share.credits === 0
      ) {
        // Far ahead of its answers, or of its address's share: not worth a single byte more.
        this.drop(socket, connection);
        return;
      }
      connection.share.credits -= 1;
      connection.waiting.push([req, res]);
      this.waitingTotal += 1;
      // Every time: Node itself starts reading a socket again once its answers drain.
      this.reading.pause(socket);
      this.list(connection);
    };
  }

  private serve: (req: IncomingMessage, res: ServerResponse, connection: Connection) => void = () =>
    undefined;

  private connectionOf(socket: Socket): Connection {
    const holder = socket as Socket & { [key: symbol]: Connection | undefined };
    const known = holder[this.connectionKey];
    if (known) return known;
    const address = socket.remoteAddress ?? "";
    const share = this.shareOf(address);
    share.open += 1;
    const connection: Connection = {
      address,
      share,
      socket,
      queuedBytes: 0,
      serving: 0,
      waiting: [],
      done: false,
      servedAtByte: -1,
      listed: false,
    };
    holder[this.connectionKey] = connection;
    socket.once("close", () => {
      this.forget(connection);
      share.open -= 1;
      if (
        share.open === 0 &&
        share.credits >= this.share.waitingPerAddress &&
        this.addresses.get(address) === share
      )
        this.addresses.delete(address);
    });
    return connection;
  }

  private shareOf(address: string): AddressShare {
    const known = this.addresses.get(address);
    if (known !== undefined) return known;
    if (this.addresses.size >= MOST_ADDRESSES) {
      for (const oldest of this.addresses.keys()) {
        this.addresses.delete(oldest);
        break;
      }
    }
    const share: AddressShare = { open: 0, credits: this.share.waitingPerAddress };
    this.addresses.set(address, share);
    return share;
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

  /** Waiting requests are served at the end of this turn. */
  private scheduleTurnEnd(): void {
    if (this.turnEndScheduled) return;
    this.turnEndScheduled = true;
    atTurnEnd(this.endTurn);
  }

  /**
   * The end of a turn: waiting requests are served in turn, up to `requestsPerTurn`; what is left
   * waits for the next turn's end, after the sockets have been read once more.
   */
  private readonly endTurn = (): void => {
    this.turnEndScheduled = false;
    this.serveWaiting(this.share.requestsPerTurn);
    if (this.ready.size > 0) this.scheduleTurnEnd();
  };

  private serveWaiting(requests: number): void {
    let left = requests;
    while (left > 0) {
      const connection = this.ready.shift();
      if (connection === undefined) return;
      connection.listed = false;
      if (connection.done || connection.waiting.length === 0) continue;
      if (this.full(connection)) {
        // Listed again when one of its answers is taken (track's settle), or, when only the
        // total is over, when anyone's is.
        if (!this.fullOnItsOwn(connection)) this.blocked.add(connection);
        continue;
      }
      const [req, res] = connection.waiting.shift() as [IncomingMessage, ServerResponse];
      this.waitingTotal -= 1;
      if (connection.share.credits < this.share.waitingPerAddress) connection.share.credits += 1;
      if (!req.destroyed && !res.destroyed) {
        this.serve(req, res, connection);
        left -= 1;
      }
      if (connection.waiting.length > 0) this.list(connection);
      else this.reading.resume(connection.socket);
    }
  }

  /** Lists a connection with waiting requests to be served at a turn's end. */
  private list(connection: Connection): void {
    if (connection.listed || connection.done || connection.waiting.length === 0) return;
    connection.listed = true;
    this.ready.push(connection.address, connection);
    this.scheduleTurnEnd();
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
      this.list(connection);
      if (this.blocked.size > 0 && this.queuedBytes < this.limits.maxQueuedBytes) {
        for (const other of this.blocked) this.list(other);
        this.blocked.clear();
      }
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
        timer = setTimeout(() => closeQuietly(req.socket), sendTimeoutMs);
        timer.unref();
      }
      if (res.statusCode === 418 || isClosing(res)) {
        // Banned or told to go: one answer, and nothing of what follows is served.
        connection.done = true;
        this.clearWaiting(connection);
        markFinished(req.socket, this.reading);
      }
      // A banned client that does not even take its 418 is not kept waiting for.
      if (res.statusCode === 418) setImmediate(() => res.writableFinished || closeQuietly(req.socket));
    });
  }

  private drop(socket: Socket, connection: Connection): void {
    markFinished(socket, this.reading);
    this.forget(connection);
    closeQuietly(socket);
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
