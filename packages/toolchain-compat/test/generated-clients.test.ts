// Each generator's client calls every operation against the reference server on loopback: the
// server must accept the request (2xx) and the answer must validate with @marketapi/validators.
// The generated code and the drivers are type-checked first, with the repository's strict settings.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { validateResponse } from "@marketapi/validators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallContext,
  callSequence,
  MODEL,
  OPERATION_IDS,
  type OperationId,
} from "../src/drivers/driver.js";
import { DRIVERS } from "../src/drivers/index.js";
import { signRequest } from "../src/drivers/signing.js";
import { generatedDir } from "../src/generate-clients.js";

const packageDir = new URL("../", import.meta.url).pathname;

describe("the generated clients", () => {
  it.each(DRIVERS.map((d) => d.generator))("%s: generated (npm run generate) from the bundled spec", (id) => {
    expect(existsSync(generatedDir(id)), `${generatedDir(id)}: run npm run generate`).toBe(true);
  });

  it("type-check with strict, noUncheckedIndexedAccess and verbatimModuleSyntax, drivers included", () => {
    const tsc = new URL("../../../node_modules/.bin/tsc", import.meta.url).pathname;
    const run = () =>
      execFileSync(tsc, ["-p", "tsconfig.json", "--noEmit"], { cwd: packageDir, encoding: "utf8" });
    expect(run).not.toThrow();
  });

  it("each driver declares every operation of the spec", () => {
    for (const driver of DRIVERS) expect(Object.keys(driver.calls).sort()).toEqual([...OPERATION_IDS].sort());
  });
});

/** The order the calls run in (derived from the spec): market data first, then an order's life. */
const SEQUENCE: readonly OperationId[] = callSequence();

describe.each(DRIVERS)("$generator against the reference server", (driver) => {
  let server: RunningServer;
  let context: CallContext;
  const seen = new Set<OperationId>();

  beforeAll(async () => {
    server = await startServer({ port: 0 });
    context = { baseUrl: server.url, ...server.demo, symbol: "BTCUSDT" };
    driver.connect(context);
  });
  afterAll(() => server?.close());

  it.each(SEQUENCE.map((id, step) => [`${step + 1}. ${id}`, id] as const))("%s", async (_step, id) => {
    const call = driver.calls[id];
    if (!call) throw new Error(`${driver.generator} has no call for ${id}`);
    const result = await call(context);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const check = validateResponse(id, result.status, result.body, { request: result.sent });
    expect(check, JSON.stringify(result.body)).toEqual({ valid: true });
    // The placing operation's order is the one the later calls name.
    if (MODEL.operations.find((op) => op.operationId === id)?.orderTypeRules)
      context.orderId = (result.body as { orderId: number }).orderId;
    seen.add(id);
  });

  it("called every operation of the spec", () => {
    expect([...seen].sort()).toEqual([...OPERATION_IDS].sort());
  });
});

describe("decimal parameters: what docs/compatibility.md says of them", () => {
  let server: RunningServer;
  let context: CallContext;
  beforeAll(async () => {
    server = await startServer({ port: 0 });
    context = { baseUrl: server.url, ...server.demo, symbol: "BTCUSDT" };
  });
  afterAll(() => server?.close());

  /** new_order with a quantity of 0.0000001, through each generated client; gives the wire text. */
  const tiny = 0.0000001;
  const senders: Record<string, () => Promise<{ status: number; body: unknown }>> = {
    "openapi-fetch": async () => {
      const { default: createClient } = await import("openapi-fetch");
      const client = createClient<import("../src/generated/openapi-fetch/schema.js").paths>({
        baseUrl: server.url,
      });
      client.use({ onRequest: ({ request }) => signRequest(request, context) });
      const query = { symbol: "BTCUSDT", side: "BUY", type: "MARKET", quantity: tiny } as const;
      const { response, error } = await client.POST("/api/v3/order", { params: { query } });
      return { status: response.status, body: error };
    },
    "hey-api": async () => {
      const sdk = await import("../src/generated/hey-api/sdk.gen.js");
      const { client } = await import("../src/generated/hey-api/client.gen.js");
      client.setConfig({ baseUrl: server.url });
      client.interceptors.request.clear();
      client.interceptors.request.use((request) => signRequest(request, context));
      const result = await sdk.newOrder({
        query: { symbol: "BTCUSDT", side: "BUY", type: "MARKET" },
        body: { quantity: tiny },
      });
      return { status: result.response?.status ?? 0, body: result.error };
    },
    orval: async () => {
      const api = await import("../src/generated/orval/api.js");
      const { configureOrval } = await import("../src/drivers/orval-fetch.js");
      configureOrval(context);
      const result = await api.newOrder(
        { symbol: "BTCUSDT", side: "BUY", type: "MARKET" },
        { quantity: tiny },
      );
      return { status: result.status, body: result.data };
    },
  };

  it.each(Object.keys(senders))(
    "%s writes 0.0000001 as 1e-7, which the server refuses by x-wire-pattern",
    async (id) => {
      expect(String(tiny)).toBe("1e-7");
      const { status, body } = await senders[id]!();
      expect(status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(body)).toMatch(/quantity/);
    },
  );
});
