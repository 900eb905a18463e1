// The sandbox's own document (specs/sandbox.openapi.yaml): what the reference server serves beyond
// the API's 17 operations. It passes the API's lint rules (spot-api-lint.test.ts lints both
// documents in one run), and bundles into one self-contained
// document (dist/sandbox.openapi.json): its references into the API's document become its own,
// the components they name copied in under the same names, and nothing else changed. The API's
// document does not name a sandbox operation.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { bundleSandbox, SpecSourceError } from "../scripts/bundle-specs.js";
import type { Json } from "./support/openapi.js";

const specs = (name: string) => readFileSync(new URL(`../../../specs/${name}`, import.meta.url), "utf8");
/** A file the build wrote into dist/. */
const built = (name: string): Json =>
  JSON.parse(readFileSync(new URL(`../dist/${name}`, import.meta.url), "utf8"));

describe("the bundle", () => {
  const bundled = built("sandbox.openapi.json");
  const api = built("openapi.json");
  const text = JSON.stringify(bundled);

  it("is the built file, self-contained: every reference is its own, and resolves", () => {
    expect(
      JSON.parse(bundleSandbox(specs("sandbox.openapi.yaml"), specs("spot-api.openapi.yaml")).contents),
    ).toEqual(bundled);
    const refs = [...text.matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/[A-Za-z]+\/[A-Za-z0-9._-]+$/);
      const [, , kind, name] = ref.split("/") as [string, string, string, string];
      expect(bundled.components[kind]?.[name], ref).toBeDefined();
    }
  });

  it("copies what it names of the API's document as it is there (the signing rule included)", () => {
    // The API's schemes as they are there; the admin surface's bearer token is the sandbox's own.
    const { adminToken, ...imported } = bundled.components.securitySchemes;
    expect(imported).toEqual(api.components.securitySchemes);
    expect(adminToken).toMatchObject({ type: "http", scheme: "bearer" });
    for (const name of ["ErrorPayload", "Decimal", "Timestamp"]) {
      expect(bundled.components.schemas[name]).toEqual(api.components.schemas[name]);
    }
    expect(bundled.components.responses.BadRequest).toEqual(api.components.responses.BadRequest);
    // Only what is named: none of the API's order schemas.
    expect(bundled.components.schemas.NewOrderFull).toBeUndefined();
  });

  it("has operations of its own, none of the API's; the API's document has none of its", () => {
    const methods = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);
    const routes = (doc: Json) =>
      Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((key) => methods.has(key))
          .map((method) => `${method} ${path}`),
      );
    const own = routes(bundled);
    expect(own).toEqual([
      "get /api/v3/account",
      "get /api/v3/myTrades",
      "get /api/v3/klines",
      "get /api/v3/uiKlines",
      // The admin surface's, served on a port of its own (each path item's servers say so).
      "get /admin/v1/status",
      "post /admin/v1/clock/advance",
      "put /admin/v1/clock/rate",
      "post /admin/v1/market/start",
      "post /admin/v1/market/stop",
      "post /admin/v1/accounts",
      "get /admin/v1/accounts/{accountId}",
      "post /admin/v1/accounts/{accountId}/deposit",
      "put /admin/v1/accounts/{accountId}/balances/{asset}",
      "post /admin/v1/reset",
      "post /admin/v1/snapshots",
      "post /admin/v1/snapshots/{snapshotId}/restore",
      "delete /admin/v1/snapshots/{snapshotId}",
    ]);
    for (const path of Object.keys(bundled.paths as object).filter((p) => p.startsWith("/admin/"))) {
      expect(
        (bundled.paths as Record<string, { servers?: { url: string }[] }>)[path]?.servers?.[0]?.url,
      ).toMatch(/^http:\/\/127\.0\.0\.1:\{admin_port\}$/);
    }
    for (const route of own) expect(routes(api)).not.toContain(route);
    expect(JSON.stringify(api)).not.toMatch(/sandbox|klines|myTrades/i);
  });
});

describe("bundleSandbox refuses", () => {
  const api = specs("spot-api.openapi.yaml");
  const sandbox = (components: string, paths = "{}") =>
    `openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths: ${paths}\ncomponents: ${components}\n`;

  it.each([
    [
      "a component the API's document does not have",
      sandbox("{ schemas: { A: { $ref: './spot-api.openapi.yaml#/components/schemas/Nope' } } }"),
      "spot-api.openapi.yaml has no component schemas/Nope",
    ],
    [
      "a name it defines otherwise than the API's document",
      sandbox(
        "{ schemas: { Decimal: { type: integer }, A: { $ref: './spot-api.openapi.yaml#/components/schemas/Decimal' } } }",
      ),
      "#/components/schemas/Decimal: defined otherwise than spot-api.openapi.yaml#/components/schemas/Decimal",
    ],
    [
      "a reference into another file",
      sandbox("{ schemas: { A: { $ref: './other.yaml#/components/schemas/A' } } }"),
      "a reference may name only spot-api.openapi.yaml or this document",
    ],
    [
      "a reference to something other than a component",
      sandbox("{ schemas: { A: { $ref: './spot-api.openapi.yaml#/paths/~1api~1v3~1ping' } } }"),
      "expected a reference to a component of spot-api.openapi.yaml",
    ],
    ["a document that is not OpenAPI 3.1", "openapi: 3.0.3\n", 'expected "openapi: 3.1.x" at /openapi'],
  ])("%s", (_, text, message) => {
    let thrown: unknown;
    try {
      bundleSandbox(text, api);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SpecSourceError);
    expect((thrown as Error).message).toContain(message);
  });

  it("and takes a component defined exactly as the API's document defines it", () => {
    const decimal = JSON.stringify(parse(api).components.schemas.Decimal);
    const text = sandbox(
      `{ schemas: { Decimal: ${decimal}, A: { $ref: './spot-api.openapi.yaml#/components/schemas/Decimal' } } }`,
    );
    expect(JSON.parse(bundleSandbox(text, api).contents).components.schemas.A).toEqual({
      $ref: "#/components/schemas/Decimal",
    });
  });
});
