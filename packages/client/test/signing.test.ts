// Request signing: the official test vectors (the spec's x-signing, as the generated operation
// table carries them to the client), reproduced by signPayload and byte for byte by the client's
// requests on a real loopback server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authentication, createSpotClient, signPayload } from "../src/index.js";
import { signing } from "./support/spec.js";
import { type SpotServer, startSpotServer } from "./support/spot-server.js";

interface TestVector {
  secret: string;
  query: string;
  body: string;
  signature: string;
}

const vectors: readonly TestVector[] = authentication.signing.testVectors;
const [queryOnly, mixed] = vectors as [TestVector, TestVector];
const TIMESTAMP = 1499827319559;

describe("signPayload", () => {
  it("the generated table carries the spec's signing facts, both documented test vectors among them", () => {
    expect(vectors).toEqual(signing.testVectors);
    expect(authentication.apiKeyHeader).toBe("X-MBX-APIKEY");
    expect(authentication.signing).toMatchObject({
      signatureParameter: "signature",
      timestampParameter: "timestamp",
      recvWindowParameter: "recvWindow",
      recvWindowMaximum: 60000,
    });
    expect(vectors).toHaveLength(2);
    expect(queryOnly.signature).toBe("c8db56825ae71d6d79447849e617115f4a920fa2acdcab2b053c4b2838bd6b71");
  });

  it.each(vectors.map((v, i) => [i + 1, v] as const))("reproduces test vector %i", async (_, vector) => {
    expect(await signPayload(vector.query + vector.body, vector.secret)).toBe(vector.signature);
  });

  it("reproduces the documented signature of the query-only example", async () => {
    const payload =
      "symbol=LTCBTC&side=BUY&type=LIMIT&timeInForce=GTC&quantity=1&price=0.1&recvWindow=5000&timestamp=1499827319559";
    expect(
      await signPayload(payload, "NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j"),
    ).toBe("c8db56825ae71d6d79447849e617115f4a920fa2acdcab2b053c4b2838bd6b71");
  });

  it("keys with the UTF-8 bytes of the secret and writes lower-case hex", async () => {
    const signature = await signPayload("symbol=%EF%BC%91", "sécret-ключ");
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    const { createHmac } = await import("node:crypto");
    expect(signature).toBe(createHmac("sha256", "sécret-ключ").update("symbol=%EF%BC%91").digest("hex"));
  });
});

describe("signed requests on the wire", () => {
  let server: SpotServer;
  beforeAll(async () => {
    server = await startSpotServer(queryOnly.secret);
  });
  afterAll(() => server.close());

  const options = () => ({
    baseUrl: server.baseUrl,
    apiKey: "vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgwCIPy6utIco14y7Ju91duEh8A",
    apiSecret: queryOnly.secret,
    now: () => TIMESTAMP,
    // The vectors' exact bytes: without lookups the client adds no newClientOrderId of its own.
    retry: { lookups: false },
  });
  const order = {
    symbol: "LTCBTC",
    side: "BUY",
    type: "LIMIT",
    timeInForce: "GTC",
    quantity: 1,
    price: 0.1,
  } as const;

  it("sends test vector 1 as the query string, signature last", async () => {
    const client = createSpotClient({ ...options(), recvWindow: 5000 });
    await client.new_order(order);
    expect(server.received.at(-1)?.rawQuery).toBe(`${queryOnly.query}&signature=${queryOnly.signature}`);
  });

  it("sends test vector 1 as the form body with paramsIn: body", async () => {
    const client = createSpotClient({ ...options(), paramsIn: "body" });
    await client.new_order({ ...order, recvWindow: 5000 });
    const received = server.received.at(-1)!;
    expect(received.rawQuery).toBe("");
    expect(received.rawBody).toBe(`${queryOnly.query}&signature=${queryOnly.signature}`);
  });

  it("signs test vector 2 (query string followed by form body, no separator)", async () => {
    const client = createSpotClient(options());
    const { symbol, side, type, timeInForce, quantity, price } = order;
    await client.POST("/api/v3/order", {
      params: { query: { symbol, side, type, timeInForce } },
      body: { quantity, price, recvWindow: 5000 },
    });
    const received = server.received.at(-1)!;
    expect(received.rawQuery).toBe(mixed.query);
    expect(received.rawBody).toBe(`${mixed.body}&signature=${mixed.signature}`);
    expect(received.signature).toEqual({ in: "body", last: true, valid: true });
  });

  it("signs the percent-encoded bytes it sends", async () => {
    const client = createSpotClient(options());
    await client.query_order({ symbol: "１２３'(x)*!", origClientOrderId: "a b+c" });
    const received = server.received.at(-1)!;
    expect(received.rawQuery).toMatch(
      /^symbol=%EF%BC%91%EF%BC%92%EF%BC%93%27%28x%29%2A%21&origClientOrderId=a%20b%2Bc&timestamp=1499827319559&signature=[0-9a-f]{64}$/,
    );
    expect(received.query[0]).toEqual(["symbol", "１２３'(x)*!"]);
    expect(received.signature?.valid).toBe(true);
  });

  it("uses the per-call recvWindow over the client's", async () => {
    const client = createSpotClient({ ...options(), recvWindow: 5000 });
    await client.new_order(order, { recvWindow: 60000 });
    expect(server.received.at(-1)?.rawQuery).toMatch(/&recvWindow=60000&timestamp=1499827319559&signature=/);
  });

  it("sends recvWindow only to operations that declare it (new_order)", async () => {
    const client = createSpotClient({ ...options(), recvWindow: 5000 });
    await client.open_orders();
    expect(server.received.at(-1)?.rawQuery).toMatch(/^timestamp=1499827319559&signature=/);
    await client.cancel_all_orders({ symbol: "LTCBTC" });
    expect(server.received.at(-1)?.rawQuery).not.toMatch(/recvWindow/);
    await expect(client.open_orders({}, { recvWindow: 60000 })).rejects.toThrow(
      "open_orders does not accept recvWindow",
    );
  });

  it("takes a fresh timestamp for every request", async () => {
    let clock = TIMESTAMP;
    const client = createSpotClient({ ...options(), now: () => clock++ });
    await client.open_orders();
    await client.open_orders();
    const stamps = server.received.slice(-2).map((r) => new URLSearchParams(r.rawQuery).get("timestamp"));
    expect(stamps).toEqual([String(TIMESTAMP), String(TIMESTAMP + 1)]);
  });
});
