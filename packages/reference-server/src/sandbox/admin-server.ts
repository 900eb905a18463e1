/**
 * The admin surface: an HTTP server of its own, on 127.0.0.1 by default (local only), apart from
 * the API's port, whose requests carry `Authorization: Bearer <admin token>` (never a trading
 * key): balances, accounts, the clock, the market, snapshots. Its operations, paths, parameters
 * and answers are those of the sandbox document (`@marketapi/spec/sandbox.openapi.json`, tag
 * "Sandbox admin", paths under /admin/v1/), read through the spec model; parameters come from the
 * query string, a form body (a name in both: the query's) and the path, and are decoded and
 * checked by `@marketapi/validators/sandbox` as the API's are by its validators. Answers are JSON,
 * refusals `{ "error": "what was wrong" }` with their status.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { loadSandboxOpenApi } from "@marketapi/spec";
import { buildSpecModel, type JsonObject } from "@marketapi/spec/model";
import { parseRequest } from "@marketapi/validators/sandbox";
import { ADMIN_PATH_PREFIX, isAdminOperation } from "../http/api.js";
import type { Logger } from "../logger.js";
import { type Sandbox, SandboxError } from "./sandbox.js";

export interface AdminOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on; default 127.0.0.1 (local only). */
  host?: string;
  /** The bearer token requests must carry; a random one by default (see `RunningAdmin.token`). */
  token?: string;
}

export interface RunningAdmin {
  /** Where the admin operations are: the server's origin followed by ADMIN_PREFIX. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly token: string;
  close(): Promise<void>;
}

/** The admin paths' common prefix, with their version (see ADMIN_PATH_PREFIX). */
export const ADMIN_PREFIX = `${ADMIN_PATH_PREFIX}v1`;
const MAX_BODY_BYTES = 64 * 1024;

/** An admin operation as the sandbox document describes it, with its route. */
export interface AdminOperation {
  operationId: string;
  /** Upper case, as requests carry it. */
  method: string;
  path: string;
  /** The path as a regular expression, a group per path parameter. */
  pattern: RegExp;
  pathParameters: string[];
  acceptsFormBody: boolean;
}

/** The admin operations of the sandbox document (its paths under ADMIN_PREFIX). */
export function describeAdmin(document: JsonObject = loadSandboxOpenApi() as JsonObject): AdminOperation[] {
  const model = buildSpecModel(document);
  return model.operations.filter(isAdminOperation).map((operation) => {
    const pathParameters: string[] = [];
    const source = operation.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        pathParameters.push(name);
        return "([^/]+)";
      })
      .join("");
    return {
      operationId: operation.operationId,
      method: operation.method.toUpperCase(),
      path: operation.path,
      pattern: new RegExp(`^${source}$`),
      pathParameters,
      acceptsFormBody: operation.acceptsFormBody,
    };
  });
}

type Params = Record<string, unknown>;
type Handler = (sandbox: Sandbox, params: Params) => Promise<[number, unknown]> | [number, unknown];

const text = (params: Params, name: string) => params[name] as string;

/** One handler per admin operation of the document (start-up fails on one without). */
const HANDLERS: Readonly<Record<string, Handler>> = {
  sandbox_status: (s) => [200, s.status()],
  sandbox_advance_clock: async (s, p) => {
    await s.advance(advanceOf(p));
    return [200, s.status()];
  },
  sandbox_set_clock_rate: async (s, p) => {
    await s.setRate(p.rate as number);
    return [200, s.status()];
  },
  sandbox_start_market: async (s) => {
    await s.startMarket();
    return [200, s.status()];
  },
  sandbox_stop_market: async (s) => {
    await s.stopMarket();
    return [200, s.status()];
  },
  sandbox_add_account: async (s, p) => [
    201,
    await s.addAccount({
      ...(p.accountId === undefined ? {} : { id: p.accountId }),
      apiKey: p.apiKey,
      apiSecret: p.apiSecret,
      ...(p.balances === undefined ? {} : { balances: p.balances }),
    }),
  ],
  sandbox_account: (s, p) => [200, s.balances(text(p, "accountId"))],
  sandbox_deposit: async (s, p) => [
    200,
    await s.deposit(text(p, "accountId"), text(p, "asset"), text(p, "amount")),
  ],
  sandbox_set_balance: async (s, p) => [
    200,
    await s.setBalance(text(p, "accountId"), text(p, "asset"), text(p, "free")),
  ],
  sandbox_reset: async (s) => [200, await s.reset()],
  sandbox_take_snapshot: async (s) => [201, await s.snapshot()],
  sandbox_restore_snapshot: async (s, p) => [200, await s.restore(text(p, "snapshotId"))],
  sandbox_delete_snapshot: (s, p) => {
    s.deleteSnapshot(text(p, "snapshotId"));
    return [204, undefined];
  },
};

/** Starts the admin server for `sandbox`; rejects when the port cannot be listened on. */
export async function startAdmin(
  sandbox: Sandbox,
  options: AdminOptions,
  logger: Logger,
): Promise<RunningAdmin> {
  const operations = describeAdmin();
  const unhandled = operations.filter((operation) => !HANDLERS[operation.operationId]);
  if (unhandled.length > 0) throw new Error(`No handler for admin operation ${unhandled[0]?.operationId}`);
  const token = options.token ?? randomBytes(24).toString("base64url");
  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((req, res) => {
    serve({ sandbox, operations, expected, logger }, req, res).catch((error: unknown) => {
      logger.error("admin request failed:", error);
      if (!res.headersSent) answer(res, 500, { error: "internal error (logged by the server)" });
    });
  });
  const host = options.host ?? "127.0.0.1";
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : (options.port ?? 0));
    });
  });
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}${ADMIN_PREFIX}`;
  return { url, port, host, token, close: () => closeAdmin(server) };
}

interface AdminContext {
  sandbox: Sandbox;
  operations: readonly AdminOperation[];
  expected: Buffer;
  logger: Logger;
}

async function serve(context: AdminContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [path = "/", query = ""] = (req.url ?? "/").split(/\?(.*)/s);
  if (!authorized(req.headers.authorization, context.expected)) {
    req.resume();
    answer(
      res,
      401,
      { error: "expected the header Authorization: Bearer <admin token> (the admin token, not an API key)" },
      { "WWW-Authenticate": 'Bearer realm="marketapi sandbox admin"' },
    );
    return;
  }
  const matching = context.operations.filter((operation) => operation.pattern.test(path));
  const operation = matching.find((candidate) => candidate.method === req.method);
  if (!operation) {
    req.resume();
    if (matching.length === 0)
      answer(res, 404, { error: `no admin operation at ${path}; they are under ${ADMIN_PREFIX}/` });
    else
      answer(
        res,
        405,
        { error: `${req.method} is not allowed on ${path}` },
        {
          Allow: matching.map((candidate) => candidate.method).join(", "),
        },
      );
    return;
  }
  try {
    const params = await readParams(operation, req, path, query);
    const [status, value] = await (HANDLERS[operation.operationId] as Handler)(context.sandbox, params);
    answer(res, status, value);
  } catch (error) {
    if (error instanceof SandboxError) answer(res, error.status, { error: error.message });
    else {
      context.logger.error(`admin ${req.method} ${path} failed:`, error);
      answer(res, 500, { error: `internal error: ${(error as Error).message}` });
    }
  }
}

/** The request's parameters (path, query, form body), decoded and checked against the document. */
async function readParams(
  operation: AdminOperation,
  req: IncomingMessage,
  path: string,
  query: string,
): Promise<Params> {
  const body = await readBody(req);
  const type = req.headers["content-type"] ?? "";
  if (body !== "" && !(operation.acceptsFormBody && /^application\/x-www-form-urlencoded\b/i.test(type))) {
    throw new SandboxError(
      400,
      operation.acceptsFormBody
        ? `expected a body of Content-Type application/x-www-form-urlencoded, found ${JSON.stringify(type)}`
        : `${operation.operationId} takes no body`,
    );
  }
  const fromQuery = new URLSearchParams(query);
  const merged = new URLSearchParams(body);
  for (const name of new Set(fromQuery.keys())) merged.delete(name);
  for (const [name, value] of fromQuery) merged.append(name, value);
  const values = (operation.pattern.exec(path) ?? []).slice(1);
  for (const [i, name] of operation.pathParameters.entries()) {
    let value: string;
    try {
      value = decodeURIComponent(values[i] as string);
    } catch {
      throw new SandboxError(400, `the path's ${name}: a malformed percent-escape`);
    }
    if (merged.has(name)) throw new SandboxError(400, `/${name} is the path's; do not send it again`);
    merged.set(name, value);
  }
  const parsed = parseRequest(operation.operationId, merged);
  if (!parsed.valid) throw new SandboxError(400, parsed.errors.map((error) => error.message).join("; "));
  return parsed.params;
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  if (header === undefined) return false;
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new SandboxError(400, `the body is over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("error", reject);
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function answer(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (status === 204) {
    res.writeHead(204, headers).end();
    return;
  }
  const body = JSON.stringify(value);
  res
    .writeHead(status, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
      ...headers,
    })
    .end(body);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An advance's parameters: exactly one of `ms`, `by` (a duration such as "90s", "24h") or `to` (epoch ms). */
function advanceOf(params: Params): { ms?: number; to?: number } {
  const given = ["ms", "by", "to"].filter((name) => params[name] !== undefined);
  if (given.length !== 1) {
    throw new SandboxError(
      400,
      `expected one of ms, by or to, found ${given.length === 0 ? "none" : given.join(" and ")}`,
    );
  }
  if (params.ms !== undefined) return { ms: params.ms as number };
  if (params.to !== undefined) return { to: params.to as number };
  const [, amount, unit] = /^([0-9]+)([a-z]+)$/.exec(params.by as string) ?? [];
  return { ms: Number(amount) * (UNIT_MS[unit as string] as number) };
}

function closeAdmin(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
