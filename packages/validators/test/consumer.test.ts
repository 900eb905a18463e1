// A consumer's own spec: generated with the @marketapi/codegen library into a folder, then used
// through createValidators. Nothing here is specific to the spot trading API.

import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildModel, GENERATORS } from "@marketapi/codegen";
import { beforeAll, describe, expect, it } from "vitest";
import { type ApiTables, type ApiValidators, createValidators } from "../src/index.js";
import { faults } from "./support.js";

const spec = {
  openapi: "3.1.0",
  info: { title: "Shop", version: "1" },
  paths: {
    "/carts/{cart}/items": {
      post: {
        operationId: "add_item",
        "x-auth-class": "trade",
        security: [{ sig: [] }],
        "x-order-type-rules": {
          BOOK: { required: ["isbn"], forbidden: ["size"] },
          SHIRT: { required: ["size"], atLeastOneOf: [["color", "pattern"]] },
        },
        parameters: [
          { name: "cart", in: "path", required: true, schema: { type: "string", format: "uuid" } },
          { name: "kind", in: "query", required: true, schema: { type: "string", enum: ["BOOK", "SHIRT"] } },
          {
            name: "isbn",
            in: "query",
            schema: { type: "string", pattern: "^[0-9]{13}$", example: "9780262033848" },
          },
          { name: "size", in: "query", schema: { type: "string", enum: ["S", "M", "L"] } },
          { name: "color", in: "query", schema: { type: "string" } },
          { name: "pattern", in: "query", schema: { type: "string" } },
          { name: "count", in: "query", schema: { type: "integer", minimum: 1, default: 1 } },
        ],
        responses: {
          "201": {
            description: "Added.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
          },
          "204": { description: "Already there." },
          "4XX": {
            description: "Refused.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Problem" } } },
          },
          default: {
            description: "Other.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Problem" } } },
          },
        },
      },
    },
  },
  components: {
    securitySchemes: {
      sig: {
        type: "apiKey",
        in: "query",
        name: "s",
        "x-signing": {
          algorithm: "HMAC-SHA256",
          parameter: "s",
          timestamp: { parameter: "t" },
          recvWindow: { parameter: "w" },
        },
      },
    },
    schemas: {
      Item: {
        type: "object",
        required: ["id", "product"],
        properties: { id: { type: "integer" }, product: { $ref: "#/components/schemas/Product" } },
      },
      Product: {
        oneOf: [{ $ref: "#/components/schemas/Book" }, { $ref: "#/components/schemas/Shirt" }],
        discriminator: { propertyName: "kind", mapping: { BOOK: "#/components/schemas/Book" } },
      },
      Book: {
        type: "object",
        required: ["kind", "isbn"],
        properties: { kind: { const: "BOOK" }, isbn: { type: "string", pattern: "^[0-9]{13}$" } },
      },
      Shirt: {
        type: "object",
        required: ["kind", "size"],
        properties: { kind: { const: "SHIRT" }, size: { enum: ["S", "M", "L"] } },
      },
      Problem: {
        type: "object",
        additionalProperties: false,
        required: ["title"],
        properties: { title: { type: "string", minLength: 1 } },
      },
    },
  },
};

let shop: ApiValidators;

beforeAll(async () => {
  const model = buildModel({ source: "shop.json", document: structuredClone(spec) });
  const files = await GENERATORS.validators(model, {
    command: "marketapi-codegen --spec shop.json --out shop",
  });
  const packageDir = fileURLToPath(new URL("..", import.meta.url));
  mkdirSync(join(packageDir, "test-results"), { recursive: true });
  const dir = mkdtempSync(join(packageDir, "test-results", "consumer-"));
  for (const file of files) writeFileSync(join(dir, file.path), file.contents);
  const tables = (await import(join(dir, "validators.gen.ts"))) as ApiTables;
  shop = createValidators(tables);
});

describe("validators generated from a consumer's spec", () => {
  const cart = "3f2504e0-4f89-11d3-9a0c-0305e82c3301";

  it("apply its parameter rules under its own names", () => {
    expect(shop.validateRequest("add_item", { cart, kind: "BOOK", isbn: "9780262033848" })).toEqual({
      valid: true,
    });
    expect(shop.validateRequest("add_item", { cart, kind: "SHIRT", size: "M" })).toEqual({
      valid: false,
      errors: faults([
        {
          path: "/color",
          rule: "x-order-type-rules",
          message: "/color or /pattern is required when kind is SHIRT",
        },
      ]),
    });
    expect(shop.validateRequest("add_item", { cart, kind: "BOOK", isbn: "123", size: "S" })).toEqual({
      valid: false,
      errors: faults([
        { path: "/size", rule: "x-order-type-rules", message: "/size is not allowed when kind is BOOK" },
        { path: "/isbn", rule: "pattern", message: '/isbn must be a string such as "9780262033848"' },
      ]),
    });
  });

  it("decode its parameter text and know its signing envelope", () => {
    expect(
      shop.parseRequest(
        "add_item",
        `cart=${cart}&kind=BOOK&isbn=9780262033848&count=2&t=1&s=${"0".repeat(64)}`,
      ),
    ).toEqual({
      valid: true,
      params: Object.assign(Object.create(null), {
        cart,
        kind: "BOOK",
        isbn: "9780262033848",
        count: 2,
        t: 1,
        s: "0".repeat(64),
      }),
    });
    expect(
      shop.validateRequest("add_item", { cart, kind: "BOOK", isbn: "9780262033848" }, { signed: true }),
    ).toMatchObject({
      valid: false,
      errors: [{ path: "/t" }, { path: "/s" }],
    });
    expect(shop.validateRequest("add_item", { cart: "nope", kind: "BOOK", isbn: "9780262033848" })).toEqual({
      valid: false,
      errors: faults([{ path: "/cart", rule: "format", message: "/cart must be a UUID" }]),
    });
  });

  it("match statuses exactly, then by range, then default; 204 has no body", () => {
    expect(
      shop.validateResponse("add_item", 201, { id: 1, product: { kind: "BOOK", isbn: "9780262033848" } }),
    ).toEqual({
      valid: true,
    });
    expect(shop.validateResponse("add_item", 204, undefined)).toEqual({ valid: true });
    expect(shop.validateResponse("add_item", 204, { id: 1 })).toMatchObject({
      valid: false,
      errors: faults([{ rule: "body" }]),
    });
    expect(shop.validateResponse("add_item", 409, { title: "taken" })).toEqual({ valid: true });
    expect(shop.validateResponse("add_item", 503, { title: "" })).toEqual({
      valid: false,
      errors: faults([{ path: "/title", rule: "minLength", message: "/title must not be empty" }]),
    });
  });

  it("explain a tagged union through the branch its tag selects", () => {
    expect(shop.validateResponse("add_item", 201, { id: 1, product: { kind: "SHIRT", size: "XL" } })).toEqual(
      {
        valid: false,
        errors: faults([
          { path: "/product/size", rule: "enum", message: '/product/size must be one of "S", "M" or "L"' },
        ]),
      },
    );
    expect(shop.validateResponse("add_item", 201, { id: 1, product: { kind: "HAT" } })).toEqual({
      valid: false,
      errors: faults([
        { path: "/product/kind", rule: "enum", message: '/product/kind must be one of "BOOK" or "SHIRT"' },
      ]),
    });
  });
});
