// A fork of the shipped spec that uses what OpenAPI 3.1 offers beyond the shipped spec: path,
// header and cookie parameters, styled query parameters, JSON, form and multipart request bodies,
// text and binary answers, every security scheme type the client sends (bearer, basic, API key in
// header, query or cookie, and the x-signing rule), operations without x-auth-class, operationIds
// that are not identifiers, and a $ref inside an extension nobody reads. The real command generates
// the client into a consumer project, strict tsc checks it (with @ts-expect-error lines for what
// must not compile), and tsx runs every new operation against a server on 127.0.0.1 that records
// what arrived.
import { createHmac } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { OpenApiDocument } from "@marketapi/spec-loader";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cleanScratch, codegen, REPO_ROOT, run, STRICT_TSCONFIG, scratchDir } from "./cli-support.js";

const TSC = join(REPO_ROOT, "node_modules/.bin/tsc");
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");
const TOKEN = "fork-token";
const API_KEY = "fork-key";
const API_SECRET = "fork-secret";

interface Received {
  method: string;
  path: string;
  rawQuery: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const received: Received[] = [];

/** Answers by path; every request is recorded with its body. */
function answer(request: Received): { status: number; type: string; body: string | Buffer } {
  const json = (status: number, value: unknown) => ({
    status,
    type: "application/json",
    body: JSON.stringify(value),
  });
  if (request.path.startsWith("/api/v3/orders/")) {
    if (request.headers.authorization !== `Bearer ${TOKEN}`) return json(401, { code: -1, msg: "no token" });
    return json(200, { orderId: decodeURIComponent(request.path.split("/").pop()!), status: "NEW" });
  }
  switch (request.path) {
    case "/api/v3/notes":
      if (request.headers.authorization !== `Bearer ${TOKEN}`)
        return json(401, { code: -1, msg: "no token" });
      return json(201, { id: 7, ...JSON.parse(request.body) });
    case "/api/v3/profile":
      return json(200, { saved: true });
    case "/api/v3/upload":
      return json(200, { bytes: request.body.length });
    case "/api/v3/report":
      return { status: 200, type: "text/plain", body: "all good" };
    case "/api/v3/logo":
      return { status: 200, type: "image/png", body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) };
    case "/api/v3/search":
      return json(200, []);
    case "/api/v3/myTrades": {
      const signed = request.rawQuery.replace(/&signature=[0-9a-f]+$/, "");
      const expected = createHmac("sha256", API_SECRET).update(signed).digest("hex");
      if (!request.rawQuery.endsWith(`signature=${expected}`)) return json(400, { code: -1022, msg: "bad" });
      return json(200, [{ id: 1 }]);
    }
    default:
      return json(404, { code: -1, msg: "not here" });
  }
}

const server: Server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const entry: Received = {
      method: request.method ?? "",
      path: url.pathname,
      rawQuery: url.search.slice(1),
      headers: request.headers,
      body: Buffer.concat(chunks).toString("latin1"),
    };
    received.push(entry);
    const { status, type, body } = answer(entry);
    response.writeHead(status, { "Content-Type": type });
    response.end(body);
  });
});

const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
const ok = (schema: unknown) => ({ "200": { description: "OK", ...json(schema) } });

/** The shipped spec and the new operations (no x-auth-class on any of them). */
function forkedSpec(): OpenApiDocument {
  const shipped = createRequire(import.meta.url).resolve("@marketapi/spec/openapi.json");
  const spec = JSON.parse(readFileSync(shipped, "utf8"));
  Object.assign(spec.components.securitySchemes, {
    bearerAuth: { type: "http", scheme: "bearer" },
    basicAuth: { type: "http", scheme: "basic" },
    queryKey: { type: "apiKey", in: "query", name: "api_key" },
    cookieKey: { type: "apiKey", in: "cookie", name: "key" },
  });
  spec.components.schemas.Note = {
    type: "object",
    required: ["id", "text"],
    properties: {
      id: { type: "integer", readOnly: true },
      text: { type: "string" },
      tags: { type: "array", items: { type: "string" } },
    },
  };
  Object.assign(spec.paths, {
    "/api/v3/orders/{orderId}": {
      parameters: [{ name: "orderId", in: "path", required: true, schema: { type: "string" } }],
      get: {
        operationId: "get-order",
        security: [{ bearerAuth: [] }],
        "x-vendor-notes": { $ref: "#/components/schemas/NothingHere" },
        parameters: [
          { name: "X-Request-Id", in: "header", required: true, schema: { type: "string", format: "uuid" } },
          { name: "session", in: "cookie", schema: { type: "string" } },
        ],
        responses: ok({
          type: "object",
          required: ["orderId", "status"],
          properties: { orderId: { type: "string" }, status: { type: "string" } },
        }),
      },
    },
    "/api/v3/notes": {
      post: {
        operationId: "notes.create",
        security: [{ bearerAuth: [] }],
        requestBody: { required: true, ...json({ $ref: "#/components/schemas/Note" }) },
        responses: { "201": { description: "Created", ...json({ $ref: "#/components/schemas/Note" }) } },
      },
    },
    "/api/v3/profile": {
      put: {
        operationId: "update_profile",
        security: [{ queryKey: [] }],
        requestBody: {
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                properties: { name: { type: "string" }, email: { type: "string", format: "email" } },
              },
            },
          },
        },
        responses: ok({ type: "object", properties: { saved: { type: "boolean" } } }),
      },
    },
    "/api/v3/upload": {
      post: {
        operationId: "upload",
        security: [{ basicAuth: [] }],
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["file"],
                properties: { file: { type: "string", format: "binary" }, caption: { type: "string" } },
              },
            },
          },
        },
        responses: ok({ type: "object", properties: { bytes: { type: "integer" } } }),
      },
    },
    "/api/v3/report": {
      get: {
        operationId: "report",
        security: [{ cookieKey: [] }],
        responses: {
          "200": { description: "text", content: { "text/plain": { schema: { type: "string" } } } },
        },
      },
    },
    "/api/v3/logo": {
      get: {
        operationId: "logo",
        security: [],
        responses: {
          "200": {
            description: "png",
            content: { "image/png": { schema: { type: "string", format: "binary" } } },
          },
        },
      },
    },
    "/api/v3/search": {
      get: {
        operationId: "search",
        security: [],
        parameters: [
          { name: "ids", in: "query", explode: false, schema: { type: "array", items: { type: "integer" } } },
          {
            name: "filter",
            in: "query",
            style: "deepObject",
            explode: true,
            schema: { type: "object", properties: { side: { type: "string" } } },
          },
        ],
        responses: ok({ type: "array", items: { type: "object" } }),
      },
    },
    "/api/v3/myTrades": {
      get: {
        operationId: "my_trades",
        security: [{ apiKey: [], signature: [] }],
        parameters: [{ name: "symbol", in: "query", required: true, schema: { type: "string" } }],
        responses: ok({ type: "array", items: { type: "object" } }),
      },
    },
  });
  return spec;
}

const MAIN = `import { createApiClient } from "@marketapi/client";
import { api } from "./generated/client.gen.js";

const client = createApiClient(api, {
  baseUrl: process.env.BASE_URL ?? "",
  bearerToken: "${TOKEN}",
  apiKey: "${API_KEY}",
  apiSecret: "${API_SECRET}",
  auth: { basicAuth: { username: "ann", password: "pw" } },
  throwOnError: true,
});

const order = await client.getOrder({ orderId: "A/1", "X-Request-Id": "7b8f", session: "s1" });
const status: string = order.data.status;
const note = await client.notesCreate({ body: { text: "hi", tags: ["a", "b"] } });
const noteId: number = note.data.id;
const profile = await client.update_profile({ body: { name: "Ann Lee", email: "ann@example.com" } });
const upload = await client.upload({ body: { file: new Blob(["hello"]), caption: "c" } });
const report: string = (await client.report()).data;
const logo: Blob = (await client.logo()).data;
await client.search({ ids: [1, 2], filter: { side: "BUY" } });
const trades = await client.my_trades({ symbol: "BTCUSDT" });

function neverCalled() {
  // @ts-expect-error the path parameter is required
  void client.getOrder({ "X-Request-Id": "x" });
  // @ts-expect-error the body's text is a string
  void client.notesCreate({ body: { text: 1 } });
  // @ts-expect-error a body is required
  void client.upload({});
  // @ts-expect-error the operationId is not the method's name
  void client["get-order"];
}
void neverCalled;

console.log(
  JSON.stringify({
    status,
    noteId,
    saved: profile.data.saved,
    bytes: upload.data.bytes,
    report,
    logoSize: logo.size,
    trades: trades.data.length,
  }),
);
`;

let baseUrl: string;
let dir: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = scratchDir("fork-constructs");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "fork-constructs", private: true, type: "module" }, null, 2),
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      ...STRICT_TSCONFIG,
      compilerOptions: { ...STRICT_TSCONFIG.compilerOptions, exactOptionalPropertyTypes: true },
    }),
  );
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src/main.ts"), MAIN);
  writeFileSync(join(dir, "fork.json"), JSON.stringify(forkedSpec(), null, 2));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  cleanScratch(dir);
});

it("generates a client for every construct of the fork, which type-checks and calls each operation", async () => {
  const generated = await codegen(["--spec", "fork.json", "--out", "src/generated", "--client"], {
    cwd: dir,
  });
  expect(generated.stderr).toBe("");
  expect(generated.code).toBe(0);
  const typed = await run(TSC, ["-p", "tsconfig.json"], { cwd: dir });
  expect(typed.stdout + typed.stderr).toBe("");
  const ran = await run(TSX, ["src/main.ts"], { cwd: dir, env: { ...process.env, BASE_URL: baseUrl } });
  expect(ran.stderr).toBe("");
  expect(JSON.parse(ran.stdout)).toEqual({
    status: "NEW",
    noteId: 7,
    saved: true,
    bytes: expect.any(Number),
    report: "all good",
    logoSize: 4,
    trades: 1,
  });
  const at = (path: string) => received.find((r) => r.path === path || r.path.startsWith(`${path}/`))!;
  const order = at("/api/v3/orders");
  expect(order.path).toBe("/api/v3/orders/A%2F1");
  expect(order.headers["x-request-id"]).toBe("7b8f");
  expect(order.headers.cookie).toBe("session=s1");
  const note = at("/api/v3/notes");
  expect(note.headers["content-type"]).toBe("application/json");
  expect(JSON.parse(note.body)).toEqual({ text: "hi", tags: ["a", "b"] });
  const profile = at("/api/v3/profile");
  expect(profile.method).toBe("PUT");
  expect(profile.rawQuery).toBe(`api_key=${API_KEY}`);
  expect(profile.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  expect(profile.body).toBe("name=Ann%20Lee&email=ann%40example.com");
  const upload = at("/api/v3/upload");
  expect(upload.headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`);
  expect(upload.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
  expect(upload.body).toMatch(/name="file"[\s\S]*hello[\s\S]*name="caption"[\s\S]*\r\nc\r\n/);
  expect(at("/api/v3/report").headers.cookie).toBe(`key=${API_KEY}`);
  expect(at("/api/v3/search").rawQuery).toBe("ids=1,2&filter[side]=BUY");
  const trades = at("/api/v3/myTrades");
  expect(trades.headers["x-mbx-apikey"]).toBe(API_KEY);
  expect(trades.rawQuery).toMatch(/^symbol=BTCUSDT&timestamp=\d+&signature=[0-9a-f]{64}$/);
  // Derived classes and method names, as the table and the methods record them.
  const table = readFileSync(join(dir, "src/generated/operations.gen.ts"), "utf8");
  const entry = (id: string) =>
    table.slice(table.indexOf(`  ${id}: {`), table.indexOf("\n  },", table.indexOf(`  ${id}: {`)));
  expect(entry('"get-order"')).toContain('authClass: "market_data"');
  expect(entry('"get-order"')).toContain('security: [["bearerAuth"]]');
  expect(entry("my_trades")).toContain('authClass: "user_data"');
  expect(entry("my_trades")).toContain('security: [["apiKey", "signature"]]');
}, 600_000);
