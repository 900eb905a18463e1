import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { windowEdgeMarginMs } from "../src/checks/auth-enforcement.js";
import { buildContractModel } from "../src/core/operations.js";
import { buildRequest, maskRequest } from "../src/http/request.js";
import { corruptSignature, failingTestVectors, hmacHex } from "../src/http/signing.js";

const model = buildContractModel(loadOpenApi());
const credentials = {
  apiKey: "k".repeat(64),
  apiSecret: "NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjInClVN65XAbvqqM6A7H5fATj0j",
};
const newOrder = model.operation("new_order")!;
const params: Array<[string, string]> = [
  ["symbol", "LTCBTC"],
  ["side", "BUY"],
  ["type", "LIMIT"],
  ["timeInForce", "GTC"],
  ["quantity", "1"],
  ["price", "0.1"],
];
const ctx = {
  baseUrl: "http://127.0.0.1:1",
  signing: model.signing,
  credentials,
  headers: {},
  now: () => 1499827319559,
};

describe("signing", () => {
  it("reproduces every x-signing test vector of the spec", () => {
    expect(model.signing.testVectors.length).toBeGreaterThanOrEqual(2);
    expect(failingTestVectors(model.signing)).toEqual([]);
    for (const v of model.signing.testVectors) expect(hmacHex(v.secret, v.query, v.body)).toBe(v.signature);
  });

  it("signs the query string as sent (vector A)", () => {
    const request = buildRequest({ op: newOrder, params, auth: { recvWindow: 5000 } }, ctx);
    const url = new URL(request.url);
    expect(url.search).toBe(
      `?${model.signing.testVectors[0]!.query}&signature=${model.signing.testVectors[0]!.signature}`,
    );
    expect(request.headers["X-MBX-APIKEY"]).toBe(credentials.apiKey);
    expect(request.body).toBeUndefined();
  });

  it("signs query + body with no separator when split, signature last in the body", () => {
    const request = buildRequest(
      { op: newOrder, params, placement: "split", auth: { recvWindow: 5000 } },
      ctx,
    );
    const query = request.url.split("?")[1]!;
    const body = request.body!;
    expect(
      body.endsWith(
        `&signature=${hmacHex(credentials.apiSecret, query, body.replace(/&signature=.*$/, ""))}`,
      ),
    ).toBe(true);
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  describe("wire escapes: the body as written, and the signature over those bytes", () => {
    const cases: Array<{ given: "lower" | "every" | "raw" | undefined; value: string; want: string }> = [
      { given: undefined, value: "ü €/a", want: "id=%C3%BC%20%E2%82%AC%2Fa" },
      { given: "lower", value: "ü €/a", want: "id=%c3%bc%20%e2%82%ac%2fa" },
      { given: "every", value: "ü/a", want: "id=%c3%bc%2f%61" },
      { given: "raw", value: "ü €/a", want: "id=ü%20€%2Fa" },
    ];
    for (const { given, value, want } of cases) {
      it(`${given ?? "standard"}: ${value}`, () => {
        const cancel = model.operation("cancel_order")!;
        const request = buildRequest(
          {
            op: cancel,
            params: [["id", value]],
            placement: "body",
            ...(given ? { wire: { escapes: given } } : {}),
          },
          ctx,
        );
        const [payload, signature] = request.body!.split("&signature=");
        expect(payload!.startsWith(`${want}&timestamp=`), payload).toBe(true);
        expect(decodeURIComponent(signature!)).toBe(hmacHex(credentials.apiSecret, "", payload!));
      });
    }
  });

  it("writes the auth variants the probes need", () => {
    const noKey = buildRequest({ op: newOrder, params, auth: { key: "none" } }, ctx);
    expect(Object.keys(noKey.headers).map((h) => h.toLowerCase())).not.toContain("x-mbx-apikey");
    const unsigned = buildRequest({ op: newOrder, params, auth: { signature: "none" } }, ctx);
    expect(unsigned.url).not.toContain("signature=");
    expect(unsigned.url).toContain("timestamp=1499827319559");
    const stale = buildRequest({ op: newOrder, params, auth: { timestamp: "stale" } }, ctx);
    expect(Number(new URL(stale.url).searchParams.get("timestamp"))).toBeLessThan(
      1499827319559 - model.signing.recvWindowDefault,
    );
    const wrong = buildRequest({ op: newOrder, params, auth: { signature: "wrong" } }, ctx);
    const right = buildRequest({ op: newOrder, params }, ctx);
    const sig = (r: { url: string }) => new URL(r.url).searchParams.get("signature")!;
    expect(sig(wrong)).toMatch(/^[0-9a-f]{64}$/);
    expect(sig(wrong)).not.toBe(sig(right));
    expect(corruptSignature("ab0")).toBe("ab1");
  });

  it("masks the API key, credential headers and the signature when printing", () => {
    const request = buildRequest(
      { op: newOrder, params, placement: "body" },
      { ...ctx, headers: { "X-Tenant": "acme", Authorization: "Bearer secret-token" } },
    );
    const masked = maskRequest(request, model.signing, ["X-Tenant"]);
    const text = JSON.stringify(masked);
    expect(text).not.toContain(credentials.apiKey);
    expect(text).not.toContain("secret-token");
    expect(text).not.toContain("acme");
    expect(masked.body).toMatch(/signature=\*\*\*$/);
    expect(request.body).not.toMatch(/signature=\*\*\*$/);
  });
});

describe("parameters travel where the spec declares them (in)", () => {
  const unit = "X-MBX-TIME-UNIT";
  // A document of one operation per place: the spec's new_order with a path and a cookie parameter added.
  const placed = {
    ...newOrder,
    path: "/api/v3/order/{ref}",
    parameters: [
      ...newOrder.parameters,
      { ...newOrder.parameters[0]!, name: "ref", in: "path" as const, required: true },
      { ...newOrder.parameters[0]!, name: "session", in: "cookie" as const, required: false },
    ],
  };
  const cases = [
    {
      name: "a header parameter is a request header, outside the signed query",
      given: [...params, [unit, "MICROSECOND"]] as Array<[string, string]>,
      want: { header: [unit, "MICROSECOND"], query: params, path: "/api/v3/order/{ref}" },
    },
    {
      name: "a path parameter fills the template, percent-encoded",
      given: [["ref", "a/b"], ...params] as Array<[string, string]>,
      want: { query: params, path: "/api/v3/order/a%2Fb" },
    },
    {
      name: "a cookie parameter goes in the Cookie header",
      given: [...params, ["session", "s 1"]] as Array<[string, string]>,
      want: { header: ["cookie", "session=s%201"], query: params, path: "/api/v3/order/{ref}" },
    },
    {
      name: "a name the operation does not declare stays in the query",
      given: [...params, ["unknownThing", "1"]] as Array<[string, string]>,
      want: { query: [...params, ["unknownThing", "1"]], path: "/api/v3/order/{ref}" },
    },
  ];
  it.each(cases)("$name", ({ given, want }) => {
    const request = buildRequest({ op: placed, params: given }, ctx);
    const url = new URL(request.url);
    expect(request.url.split("?")[0]).toBe(`${ctx.baseUrl}${want.path}`);
    const sent = [...url.searchParams].filter(([name]) => name !== "timestamp" && name !== "signature");
    expect(sent).toEqual(want.query);
    if (want.header) expect(request.headers[want.header[0]!]).toBe(want.header[1]);
    // The signature covers the query as sent, and only it.
    const query = url.search.slice(1).replace(/&signature=[0-9a-f]+$/, "");
    expect(url.searchParams.get("signature")).toBe(hmacHex(credentials.apiSecret, query, ""));
  });

  it("the spec's time-unit header on a read", () => {
    const time = model.operation("server_time")!;
    const request = buildRequest({ op: time, params: [[unit, "microsecond"]] }, ctx);
    expect(new URL(request.url).search).toBe("");
    expect(request.headers[unit]).toBe("microsecond");
  });
});

describe("windowEdgeMarginMs: how far past recvWindow a timestamp is surely refused", () => {
  const reading = (halfTrip: number) =>
    ({ clock: { offsetMs: 0, note: "", reading: { halfTrip } } }) as never;
  it.each([
    { given: 0.4, want: 11 },
    { given: 2, want: 14 },
    { given: 30, want: 70 },
  ])("half a round trip of $given ms → $want ms", ({ given, want }) => {
    expect(windowEdgeMarginMs(reading(given))).toBe(want);
  });
  it("is unknown without a reading of the target's clock", () => {
    expect(windowEdgeMarginMs({})).toBeUndefined();
  });
});
