/**
 * The admin surface: an HTTP server of its own, on 127.0.0.1 by default (local only), apart from
 * the API's port, whose requests carry `Authorization: Bearer <admin token>` (never a trading
 * key): balances, accounts, the clock, the market, snapshots. JSON in and out; every refusal is
 * `{ "error": "what was wrong" }` with its status. Described by `sandbox-admin.openapi.yaml`.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Logger } from "../logger.js";
import { MAX_CLOCK_RATE } from "./clock.js";
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
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly token: string;
  close(): Promise<void>;
}

/** The admin paths' common prefix. */
export const ADMIN_PREFIX = "/admin/v1";
const MAX_BODY_BYTES = 64 * 1024;

type Body = Record<string, unknown>;
type Handler = (
  sandbox: Sandbox,
  params: string[],
  body: Body,
) => Promise<[number, unknown]> | [number, unknown];

interface Route {
  method: string;
  path: RegExp;
  handler: Handler;
}

const SEGMENT = "([A-Za-z0-9_.-]{1,64})";

const ROUTES: Route[] = [
  { method: "GET", path: /^\/status$/, handler: (s) => [200, s.status()] },
  {
    method: "POST",
    path: /^\/clock\/advance$/,
    handler: async (s, _p, body) => {
      await s.advance(advanceOf(body));
      return [200, s.status()];
    },
  },
  {
    method: "PUT",
    path: /^\/clock\/rate$/,
    handler: async (s, _p, body) => {
      only(body, ["rate"]);
      const rate = body.rate;
      if (typeof rate !== "number" || !(rate >= 0 && rate <= MAX_CLOCK_RATE)) {
        throw new SandboxError(
          400,
          `/rate: expected a number from 0 (paused) to ${MAX_CLOCK_RATE}, found ${JSON.stringify(rate)}`,
        );
      }
      await s.setRate(rate);
      return [200, s.status()];
    },
  },
  {
    method: "POST",
    path: /^\/market\/start$/,
    handler: async (s, _p, body) => {
      only(body, []);
      await s.startMarket();
      return [200, s.status()];
    },
  },
  {
    method: "POST",
    path: /^\/market\/stop$/,
    handler: async (s, _p, body) => {
      only(body, []);
      await s.stopMarket();
      return [200, s.status()];
    },
  },
  { method: "POST", path: /^\/accounts$/, handler: async (s, _p, body) => [201, await s.addAccount(body)] },
  {
    method: "GET",
    path: new RegExp(`^/accounts/${SEGMENT}$`),
    handler: (s, [id]) => [200, s.balances(id as string)],
  },
  {
    method: "POST",
    path: new RegExp(`^/accounts/${SEGMENT}/deposit$`),
    handler: async (s, [id], body) => {
      only(body, ["asset", "amount"]);
      return [
        200,
        await s.deposit(id as string, asset(body.asset, "/asset"), amount(body.amount, "/amount")),
      ];
    },
  },
  {
    method: "PUT",
    path: new RegExp(`^/accounts/${SEGMENT}/balances/${SEGMENT}$`),
    handler: async (s, [id, name], body) => {
      only(body, ["free"]);
      return [
        200,
        await s.setBalance(id as string, asset(name, "the path's asset"), amount(body.free, "/free")),
      ];
    },
  },
  {
    method: "POST",
    path: /^\/reset$/,
    handler: async (s, _p, body) => {
      only(body, []);
      return [200, await s.reset()];
    },
  },
  {
    method: "POST",
    path: /^\/snapshots$/,
    handler: async (s, _p, body) => {
      only(body, []);
      return [201, await s.snapshot()];
    },
  },
  {
    method: "POST",
    path: new RegExp(`^/snapshots/${SEGMENT}/restore$`),
    handler: async (s, [id], body) => {
      only(body, []);
      return [200, await s.restore(id as string)];
    },
  },
  {
    method: "DELETE",
    path: new RegExp(`^/snapshots/${SEGMENT}$`),
    handler: (s, [id]) => {
      s.deleteSnapshot(id as string);
      return [204, undefined];
    },
  },
];

/** Starts the admin server for `sandbox`; rejects when the port cannot be listened on. */
export async function startAdmin(
  sandbox: Sandbox,
  options: AdminOptions,
  logger: Logger,
): Promise<RunningAdmin> {
  const token = options.token ?? randomBytes(24).toString("base64url");
  const expected = Buffer.from(`Bearer ${token}`);
  const server = createServer((req, res) => {
    serve(sandbox, expected, req, res, logger).catch((error: unknown) => {
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

async function serve(
  sandbox: Sandbox,
  expected: Buffer,
  req: IncomingMessage,
  res: ServerResponse,
  logger: Logger,
): Promise<void> {
  const path = (req.url ?? "/").split("?")[0] as string;
  if (!authorized(req.headers.authorization, expected)) {
    req.resume();
    answer(
      res,
      401,
      { error: "expected the header Authorization: Bearer <admin token> (the admin token, not an API key)" },
      {
        "WWW-Authenticate": 'Bearer realm="marketapi sandbox admin"',
      },
    );
    return;
  }
  const relative = path.startsWith(`${ADMIN_PREFIX}/`) ? path.slice(ADMIN_PREFIX.length) : undefined;
  const matching = relative === undefined ? [] : ROUTES.filter((route) => route.path.test(relative));
  const route = matching.find((candidate) => candidate.method === req.method);
  if (!route) {
    req.resume();
    if (matching.length === 0)
      answer(res, 404, { error: `no admin operation at ${path}; the operations are under ${ADMIN_PREFIX}/` });
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
  const params = (route.path.exec(relative as string) ?? []).slice(1);
  try {
    const body = await readJsonBody(req);
    const [status, value] = await route.handler(sandbox, params, body);
    answer(res, status, value);
  } catch (error) {
    if (error instanceof SandboxError) answer(res, error.status, { error: error.message });
    else {
      logger.error(`admin ${req.method} ${path} failed:`, error);
      answer(res, 500, { error: `internal error: ${(error as Error).message}` });
    }
  }
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  if (header === undefined) return false;
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readJsonBody(req: IncomingMessage): Promise<Body> {
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
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8").trim();
      if (text === "") return resolve({});
      const type = req.headers["content-type"] ?? "";
      if (!/^application\/json\b/i.test(type)) {
        return reject(
          new SandboxError(
            400,
            `expected a body of Content-Type application/json, found ${JSON.stringify(type)}`,
          ),
        );
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return reject(new SandboxError(400, `the body is not JSON: ${(error as Error).message}`));
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return reject(new SandboxError(400, "expected the body to be a JSON object"));
      }
      resolve(value as Body);
    });
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

/** Refuses members other than `allowed`. */
function only(body: Body, allowed: readonly string[]): void {
  const extra = Object.keys(body).filter((key) => !allowed.includes(key));
  if (extra.length > 0) {
    const takes =
      allowed.length === 0 ? "takes no body members" : `takes ${allowed.map((key) => `"${key}"`).join(", ")}`;
    throw new SandboxError(400, `/${extra[0]}: unknown member; this operation ${takes}`);
  }
}

const DURATION = /^([0-9]{1,12})(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An advance's body: exactly one of `ms` (whole milliseconds), `by` (a duration such as "90s", "24h") or `to` (epoch ms). */
function advanceOf(body: Body): { ms?: number; to?: number } {
  only(body, ["ms", "by", "to"]);
  const given = ["ms", "by", "to"].filter((key) => body[key] !== undefined);
  if (given.length !== 1) {
    throw new SandboxError(
      400,
      `expected exactly one of "ms", "by" or "to", found ${given.length === 0 ? "none" : given.join(" and ")}`,
    );
  }
  if (body.ms !== undefined) {
    if (!Number.isSafeInteger(body.ms) || (body.ms as number) < 0) {
      throw new SandboxError(
        400,
        `/ms: expected a whole number of milliseconds, 0 or more, found ${JSON.stringify(body.ms)}`,
      );
    }
    return { ms: body.ms as number };
  }
  if (body.by !== undefined) {
    const match = typeof body.by === "string" ? DURATION.exec(body.by) : null;
    if (!match) {
      throw new SandboxError(
        400,
        `/by: expected a duration such as "500ms", "90s", "15m", "24h" or "7d", found ${JSON.stringify(body.by)}`,
      );
    }
    return { ms: Number(match[1]) * (UNIT_MS[match[2] as string] as number) };
  }
  if (!Number.isSafeInteger(body.to) || (body.to as number) < 0) {
    throw new SandboxError(
      400,
      `/to: expected a time in epoch milliseconds, found ${JSON.stringify(body.to)}`,
    );
  }
  return { to: body.to as number };
}

function asset(value: unknown, where: string): string {
  if (typeof value !== "string" || !/^[A-Z0-9]{1,20}$/.test(value)) {
    throw new SandboxError(400, `${where}: expected an asset such as "USDT", found ${JSON.stringify(value)}`);
  }
  return value;
}

function amount(value: unknown, where: string): string {
  if (typeof value !== "string" || !/^[0-9]{1,20}(\.[0-9]{1,8})?$/.test(value)) {
    throw new SandboxError(
      400,
      `${where}: expected a decimal string with at most 8 decimals such as "1000.5", found ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function closeAdmin(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
