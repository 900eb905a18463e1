// The rules, as a table: an old fragment and a new fragment at a place of a small document, and the
// classes (and rule kinds) the diff must report. `undefined` means the fragment is absent.
import { describe, expect, it } from "vitest";
import { type ChangeClass, diffDocuments, type OpenApiDocument } from "../src/index.js";

const OP = "/paths/~1o/post";
const PARAM = `${OP}/parameters/0`;
const BODY = `${OP}/requestBody`;
const OK = `${OP}/responses/200/content/application~1json/schema`;

function baseDocument(): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: { title: "t", version: "1.0.0" },
    paths: {
      "/o": {
        post: {
          operationId: "op",
          "x-auth-class": "trade",
          "x-weight": 1,
          security: [{ apiKey: [], signature: [] }],
          parameters: [{ name: "symbol", in: "query", required: true, schema: { type: "string" } }],
          requestBody: {
            content: {
              "application/x-www-form-urlencoded": {
                schema: { type: "object", properties: { qty: { type: "number" } } },
              },
            },
          },
          responses: {
            "200": {
              description: "ok",
              headers: { "X-Used": { required: true, schema: { type: "integer" } } },
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["id"],
                    properties: { id: { type: "integer" }, side: { enum: ["BUY", "SELL"] } },
                  },
                },
              },
            },
            "400": { $ref: "#/components/responses/Error" },
          },
        },
      },
    },
    components: {
      responses: { Error: { description: "error" } },
      schemas: {
        Unused: { type: "string" },
        Ack: { type: "object" },
        Full: { type: "object", required: ["fills"] },
      },
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-KEY" },
        signature: {
          type: "apiKey",
          in: "query",
          name: "signature",
          "x-signing": { algorithm: "HMAC-SHA256", payload: "query+body" },
        },
      },
    },
  };
}

/** The document with `value` at `pointer` (removed when undefined), parents created as needed. */
function withFragment(pointer: string, value: unknown): OpenApiDocument {
  const document = baseDocument();
  const segments = pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = segments.pop()!;
  let node = document as Record<string, unknown>;
  for (const segment of segments) {
    node[segment] ??= {};
    node = node[segment] as Record<string, unknown>;
  }
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return document;
}

interface Case {
  name: string;
  at: string;
  old: unknown;
  new: unknown;
  /** Every change expected, as "class kind"; the fragment's own, nothing else. */
  want: `${ChangeClass} ${string}`[];
}

const str = { type: "string" };
const param = (extra: object) => ({ name: "symbol", in: "query", required: true, schema: str, ...extra });
const orderRules = {
  LIMIT: { required: ["price"], forbidden: ["stopPrice"] },
  MARKET: { exactlyOneOf: [["qty", "quoteQty"]] },
};

const cases: Case[] = [
  // operations and paths
  {
    name: "operation removed",
    at: OP,
    old: baseDocument().paths["/o"].post,
    new: undefined,
    want: ["breaking operation-removed"],
  },
  {
    name: "operation added",
    at: "/paths/~1p/get",
    old: undefined,
    new: { operationId: "p", responses: {} },
    want: ["compatible operation-added"],
  },
  {
    name: "path renamed, same operationId",
    at: "/paths",
    old: { "/o": { get: { operationId: "g", responses: {} } } },
    new: { "/orders": { get: { operationId: "g", responses: {} } } },
    want: ["breaking operation-moved"],
  },
  {
    name: "path parameter renamed in the template only",
    at: "/paths",
    old: { "/o/{id}": { get: { operationId: "g", responses: {} } } },
    new: { "/o/{key}": { get: { operationId: "g", responses: {} } } },
    want: [],
  },
  {
    name: "operationId changed",
    at: `${OP}/operationId`,
    old: "op",
    new: "op2",
    want: ["breaking operation-id-changed"],
  },
  {
    name: "operation deprecated",
    at: `${OP}/deprecated`,
    old: undefined,
    new: true,
    want: ["informational operation-deprecated"],
  },
  // parameters
  {
    name: "required parameter added",
    at: `${OP}/parameters/1`,
    old: undefined,
    new: { name: "side", in: "query", required: true, schema: str },
    want: ["breaking parameter-added-required"],
  },
  {
    name: "optional parameter added",
    at: `${OP}/parameters/1`,
    old: undefined,
    new: { name: "side", in: "query", schema: str },
    want: ["compatible parameter-added-optional"],
  },
  {
    name: "optional parameter removed",
    at: PARAM,
    old: param({ required: false }),
    new: undefined,
    want: ["breaking optional-parameter-removed"],
  },
  {
    name: "required parameter removed",
    at: PARAM,
    old: param({}),
    new: undefined,
    want: ["breaking parameter-removed"],
  },
  {
    name: "parameter moved from query to header",
    at: `${PARAM}/in`,
    old: "query",
    new: "header",
    want: ["breaking parameter-added-required", "breaking parameter-removed"],
  },
  {
    name: "parameter became required",
    at: PARAM,
    old: param({ required: false }),
    new: param({}),
    want: ["breaking parameter-became-required"],
  },
  {
    name: "parameter became optional",
    at: PARAM,
    old: param({}),
    new: param({ required: false }),
    want: ["compatible parameter-became-optional"],
  },
  {
    name: "parameter type changed",
    at: `${PARAM}/schema`,
    old: str,
    new: { type: "boolean" },
    want: ["breaking type-different"],
  },
  {
    name: "parameter type widened integer → number",
    at: `${PARAM}/schema`,
    old: { type: "integer" },
    new: { type: "number" },
    want: ["compatible type-wider"],
  },
  {
    name: "parameter type narrowed number → integer",
    at: `${PARAM}/schema`,
    old: { type: "number" },
    new: { type: "integer" },
    want: ["breaking type-narrower"],
  },
  {
    name: "parameter format added",
    at: `${PARAM}/schema/format`,
    old: undefined,
    new: "date-time",
    want: ["breaking format-narrower"],
  },
  {
    name: "parameter format int32 → int64",
    at: `${PARAM}/schema`,
    old: { type: "integer", format: "int32" },
    new: { type: "integer", format: "int64" },
    want: ["compatible format-wider"],
  },
  {
    name: "parameter enum narrowed",
    at: `${PARAM}/schema/enum`,
    old: ["A", "B"],
    new: ["A"],
    want: ["breaking enum-narrower"],
  },
  {
    name: "parameter enum widened",
    at: `${PARAM}/schema/enum`,
    old: ["A"],
    new: ["A", "B"],
    want: ["compatible enum-wider"],
  },
  {
    name: "parameter enum reordered",
    at: `${PARAM}/schema/enum`,
    old: ["A", "B"],
    new: ["B", "A"],
    want: ["informational enum-reordered"],
  },
  {
    name: "parameter pattern added",
    at: `${PARAM}/schema/pattern`,
    old: undefined,
    new: "^[A-Z]+$",
    want: ["breaking pattern-narrower"],
  },
  {
    name: "parameter pattern changed",
    at: `${PARAM}/schema/pattern`,
    old: "^[A-Z]+$",
    new: "^[A-Z0-9]+$",
    want: ["breaking pattern-different"],
  },
  {
    name: "parameter pattern removed",
    at: `${PARAM}/schema/pattern`,
    old: "^[A-Z]+$",
    new: undefined,
    want: ["compatible pattern-wider"],
  },
  {
    name: "parameter maxLength lowered",
    at: `${PARAM}/schema/maxLength`,
    old: 20,
    new: 10,
    want: ["breaking maxLength-narrower"],
  },
  {
    name: "parameter minLength lowered",
    at: `${PARAM}/schema/minLength`,
    old: 2,
    new: 1,
    want: ["compatible minLength-wider"],
  },
  {
    name: "parameter minimum raised",
    at: `${PARAM}/schema`,
    old: { type: "integer", minimum: 1 },
    new: { type: "integer", minimum: 5 },
    want: ["breaking minimum-narrower"],
  },
  {
    name: "parameter maximum raised",
    at: `${PARAM}/schema`,
    old: { type: "integer", maximum: 100 },
    new: { type: "integer", maximum: 1000 },
    want: ["compatible maximum-wider"],
  },
  {
    name: "parameter maximum added",
    at: `${PARAM}/schema`,
    old: { type: "integer" },
    new: { type: "integer", maximum: 1000 },
    want: ["breaking maximum-narrower"],
  },
  {
    name: "parameter exclusiveMinimum added",
    at: `${PARAM}/schema`,
    old: { type: "number" },
    new: { type: "number", exclusiveMinimum: 0 },
    want: ["breaking exclusiveMinimum-narrower"],
  },
  {
    name: "parameter multipleOf made finer",
    at: `${PARAM}/schema`,
    old: { type: "number", multipleOf: 0.5 },
    new: { type: "number", multipleOf: 0.25 },
    want: ["compatible multipleOf-wider"],
  },
  {
    name: "parameter default changed",
    at: `${PARAM}/schema/default`,
    old: "A",
    new: "B",
    want: ["breaking default-changed"],
  },
  {
    name: "parameter description changed",
    at: `${PARAM}/description`,
    old: "a",
    new: "b",
    want: ["informational structural"],
  },
  {
    name: "parameter deprecated",
    at: `${PARAM}/deprecated`,
    old: undefined,
    new: true,
    want: ["informational parameter-deprecated"],
  },
  {
    name: "parameter style changed",
    at: `${PARAM}/style`,
    old: undefined,
    new: "pipeDelimited",
    want: ["breaking parameter-serialization-changed"],
  },
  {
    name: "parameter switched from schema to content",
    at: PARAM,
    old: param({}),
    new: { name: "symbol", in: "query", required: true, content: { "application/json": { schema: str } } },
    want: ["breaking parameter-encoding-changed"],
  },
  {
    name: "content-encoded parameter: items narrowed",
    at: PARAM,
    old: {
      name: "symbol",
      in: "query",
      required: true,
      content: { "application/json": { schema: { type: "array", items: str } } },
    },
    new: {
      name: "symbol",
      in: "query",
      required: true,
      content: { "application/json": { schema: { type: "array", items: str, maxItems: 5 } } },
    },
    want: ["breaking maxItems-narrower"],
  },
  {
    name: "content-encoded parameter: media type changed",
    at: `${PARAM}`,
    old: { name: "symbol", in: "query", content: { "application/json": { schema: str } } },
    new: { name: "symbol", in: "query", content: { "text/plain": { schema: str } } },
    want: ["breaking request-media-type-removed", "compatible request-media-type-added"],
  },
  {
    name: "parameter $ref to an equal component",
    at: PARAM,
    old: param({}),
    new: { $ref: "#/components/parameters/Symbol" },
    want: [],
  },
  // request bodies
  {
    name: "request body removed",
    at: BODY,
    old: baseDocument().paths["/o"].post.requestBody,
    new: undefined,
    want: ["breaking request-body-removed"],
  },
  {
    name: "required request body added",
    at: "/paths/~1o/post/requestBody/required",
    old: undefined,
    new: true,
    want: ["breaking request-body-became-required"],
  },
  {
    name: "request media type removed",
    at: `${BODY}/content/application~1x-www-form-urlencoded`,
    old: baseDocument().paths["/o"].post.requestBody.content["application/x-www-form-urlencoded"],
    new: undefined,
    want: ["breaking request-media-type-removed"],
  },
  {
    name: "request media type added",
    at: `${BODY}/content/application~1json`,
    old: undefined,
    new: { schema: { type: "object" } },
    want: ["compatible request-media-type-added"],
  },
  {
    name: "request property became required",
    at: `${BODY}/content/application~1x-www-form-urlencoded/schema/required`,
    old: undefined,
    new: ["qty"],
    want: ["breaking property-became-required"],
  },
  {
    name: "request property added",
    at: `${BODY}/content/application~1x-www-form-urlencoded/schema/properties/note`,
    old: undefined,
    new: str,
    want: ["compatible property-added"],
  },
  {
    name: "request property removed",
    at: `${BODY}/content/application~1x-www-form-urlencoded/schema/properties/qty`,
    old: { type: "number" },
    new: undefined,
    want: ["breaking property-removed"],
  },
  {
    name: "request additionalProperties closed",
    at: `${BODY}/content/application~1x-www-form-urlencoded/schema/additionalProperties`,
    old: undefined,
    new: false,
    want: ["breaking additionalProperties-narrower"],
  },
  // responses
  {
    name: "success status removed",
    at: `${OP}/responses/200`,
    old: baseDocument().paths["/o"].post.responses["200"],
    new: undefined,
    want: ["breaking response-status-removed"],
  },
  {
    name: "success status added",
    at: `${OP}/responses/201`,
    old: undefined,
    new: { description: "created" },
    want: ["breaking response-status-added"],
  },
  {
    name: "error status added",
    at: `${OP}/responses/429`,
    old: undefined,
    new: { description: "slow down" },
    want: ["compatible response-status-added"],
  },
  {
    name: "error status removed",
    at: `${OP}/responses/400`,
    old: { $ref: "#/components/responses/Error" },
    new: undefined,
    want: ["compatible response-status-removed"],
  },
  {
    name: "response media type removed",
    at: `${OP}/responses/200/content`,
    old: { "application/json": { schema: str } },
    new: { "text/plain": { schema: str } },
    want: ["breaking response-media-type-removed", "compatible response-media-type-added"],
  },
  {
    name: "response property removed",
    at: `${OK}/properties/side`,
    old: { enum: ["BUY", "SELL"] },
    new: undefined,
    want: ["breaking property-removed"],
  },
  {
    name: "response property added",
    at: `${OK}/properties/price`,
    old: undefined,
    new: str,
    want: ["compatible property-added"],
  },
  {
    name: "response property no longer required",
    at: `${OK}/required`,
    old: ["id"],
    new: [],
    want: ["breaking property-became-optional"],
  },
  {
    name: "response property now required",
    at: `${OK}/required`,
    old: ["id"],
    new: ["id", "side"],
    want: ["compatible property-became-required"],
  },
  {
    name: "response type added where any type was allowed",
    at: `${OK}/properties/side/type`,
    old: undefined,
    new: "string",
    want: ["compatible type-narrower"],
  },
  {
    name: "request type removed",
    at: `${PARAM}/schema/type`,
    old: "string",
    new: undefined,
    want: ["compatible type-wider"],
  },
  {
    name: "keyword beside a $ref tightened",
    at: `${PARAM}/schema`,
    old: { $ref: "#/components/schemas/Unused" },
    new: { $ref: "#/components/schemas/Unused", maxLength: 8 },
    want: ["breaking maxLength-narrower"],
  },
  {
    name: "x-response-variant-by variant renamed to an equal schema",
    at: `${OP}/x-response-variant-by`,
    old: { parameter: "a", variants: { ACK: "#/components/schemas/Ack" } },
    new: { parameter: "a", variants: { ACK: "#/components/schemas/AckToo" } },
    want: ["informational response-variant-renamed"],
  },
  {
    name: "response type changed",
    at: `${OK}/properties/id`,
    old: { type: "integer" },
    new: str,
    want: ["breaking type-different"],
  },
  {
    name: "response type made nullable",
    at: `${OK}/properties/id`,
    old: { type: "integer" },
    new: { type: ["integer", "null"] },
    want: ["breaking type-wider"],
  },
  {
    name: "response enum grew",
    at: `${OK}/properties/side/enum`,
    old: ["BUY", "SELL"],
    new: ["BUY", "SELL", "HOLD"],
    want: ["breaking enum-wider"],
  },
  {
    name: "response enum shrank",
    at: `${OK}/properties/side/enum`,
    old: ["BUY", "SELL"],
    new: ["BUY"],
    want: ["compatible enum-narrower"],
  },
  {
    name: "response const changed",
    at: `${OK}/properties/kind`,
    old: { const: "A" },
    new: { const: "B" },
    want: ["breaking const-different"],
  },
  {
    name: "response const added",
    at: `${OK}/properties/kind`,
    old: str,
    new: { type: "string", const: "A" },
    want: ["compatible const-narrower"],
  },
  {
    name: "response const removed",
    at: `${OK}/properties/kind`,
    old: { type: "string", const: "A" },
    new: str,
    want: ["breaking const-wider"],
  },
  {
    name: "response prefixItems position type changed",
    at: `${OK}/properties/level`,
    old: { type: "array", prefixItems: [str, str] },
    new: { type: "array", prefixItems: [str, { type: "number" }] },
    want: ["breaking type-different"],
  },
  {
    name: "response prefixItems grew",
    at: `${OK}/properties/level`,
    old: { type: "array", prefixItems: [str, str] },
    new: { type: "array", prefixItems: [str, str, str] },
    want: ["breaking prefixItems-different"],
  },
  {
    name: "response items type changed",
    at: `${OK}/properties/fills`,
    old: { type: "array", items: str },
    new: { type: "array", items: { type: "integer" } },
    want: ["breaking type-different"],
  },
  {
    name: "response oneOf alternative added",
    at: `${OK}/properties/v`,
    old: { oneOf: [str] },
    new: { oneOf: [str, { type: "integer" }] },
    want: ["breaking oneOf-wider"],
  },
  {
    name: "response header removed",
    at: `${OP}/responses/200/headers/X-Used`,
    old: { required: true, schema: { type: "integer" } },
    new: undefined,
    want: ["breaking response-header-removed"],
  },
  {
    name: "response header no longer required",
    at: `${OP}/responses/200/headers/X-Used/required`,
    old: true,
    new: false,
    want: ["breaking response-header-became-optional"],
  },
  // security
  {
    name: "security tightened",
    at: `${OP}/security`,
    old: [{ apiKey: [] }],
    new: [{ apiKey: [], signature: [] }],
    want: ["breaking security-requirement-removed"],
  },
  {
    name: "security loosened: anonymous allowed",
    at: `${OP}/security`,
    old: [{ apiKey: [] }],
    new: [{}, { apiKey: [] }],
    want: ["compatible security-requirement-added"],
  },
  {
    name: "security alternative removed",
    at: `${OP}/security`,
    old: [{ apiKey: [], signature: [] }, { apiKey: [] }],
    new: [{ apiKey: [], signature: [] }],
    want: ["breaking security-requirement-removed"],
  },
  {
    name: "security removed: no requirement lets anyone in",
    at: `${OP}/security`,
    old: [{ apiKey: [], signature: [] }],
    new: undefined,
    want: ["compatible security-requirement-added"],
  },
  {
    name: "security: the document's default applies instead, same requirement",
    at: "/security",
    old: undefined,
    new: [{ apiKey: [], signature: [] }],
    want: [],
  },
  {
    name: "security scheme moved to the query",
    at: "/components/securitySchemes/apiKey/in",
    old: "header",
    new: "query",
    want: ["breaking security-scheme-changed"],
  },
  // extensions
  {
    name: "x-auth-class tightened",
    at: `${OP}/x-auth-class`,
    old: "market_data",
    new: "trade",
    want: ["breaking auth-class-tightened"],
  },
  {
    name: "x-auth-class loosened",
    at: `${OP}/x-auth-class`,
    old: "user_data",
    new: "none",
    want: ["compatible auth-class-loosened"],
  },
  {
    name: "x-auth-class unknown value",
    at: `${OP}/x-auth-class`,
    old: "trade",
    new: "admin",
    want: ["breaking auth-class-changed"],
  },
  {
    name: "x-signing payload changed",
    at: "/components/securitySchemes/signature/x-signing/payload",
    old: "query+body",
    new: "body",
    want: ["breaking signing-changed"],
  },
  {
    name: "x-signing test vector added",
    at: "/components/securitySchemes/signature/x-signing/testVectors",
    old: undefined,
    new: [{ secret: "s", query: "a=1", body: "", signature: "00" }],
    want: ["breaking signing-changed"],
  },
  {
    name: "x-order-type-rules requires more",
    at: `${OP}/x-order-type-rules`,
    old: orderRules,
    new: { ...orderRules, LIMIT: { required: ["price", "timeInForce"], forbidden: ["stopPrice"] } },
    want: ["breaking order-type-rules-stricter"],
  },
  {
    name: "x-order-type-rules forbids more",
    at: `${OP}/x-order-type-rules`,
    old: orderRules,
    new: { ...orderRules, LIMIT: { required: ["price"], forbidden: ["stopPrice", "icebergQty"] } },
    want: ["breaking order-type-rules-stricter"],
  },
  {
    name: "x-order-type-rules forbids less",
    at: `${OP}/x-order-type-rules`,
    old: orderRules,
    new: { ...orderRules, LIMIT: { required: ["price"] } },
    want: ["compatible order-type-rules-looser"],
  },
  {
    name: "x-order-type-rules exactlyOneOf dropped",
    at: `${OP}/x-order-type-rules`,
    old: orderRules,
    new: { ...orderRules, MARKET: {} },
    want: ["compatible order-type-rules-looser"],
  },
  {
    name: "x-order-type-rules atLeastOneOf added",
    at: `${OP}/x-order-type-rules`,
    old: orderRules,
    new: { ...orderRules, MARKET: { ...orderRules.MARKET, atLeastOneOf: [["a", "b"]] } },
    want: ["breaking order-type-rules-stricter"],
  },
  {
    name: "x-order-type-rules rule for a new type",
    at: `${OP}/x-order-type-rules`,
    old: orderRules,
    new: { ...orderRules, STOP: { required: ["stopPrice"] } },
    want: ["breaking order-type-rules-stricter"],
  },
  {
    name: "x-mutually-exclusive group added",
    at: `${OP}/x-mutually-exclusive`,
    old: undefined,
    new: [["symbol", "symbols"]],
    want: ["breaking mutually-exclusive-added"],
  },
  {
    name: "x-mutually-exclusive group removed",
    at: `${OP}/x-mutually-exclusive`,
    old: [["symbol", "symbols"]],
    new: [],
    want: ["compatible mutually-exclusive-removed"],
  },
  {
    name: "x-mutually-exclusive group grew",
    at: `${OP}/x-mutually-exclusive`,
    old: [["a", "b"]],
    new: [["a", "b", "c"]],
    want: ["breaking mutually-exclusive-added"],
  },
  {
    name: "x-parameter-conditions condition added",
    at: `${OP}/x-parameter-conditions`,
    old: [],
    new: [{ when: "icebergQty", require: { timeInForce: "GTC" } }],
    want: ["breaking parameter-condition-added"],
  },
  {
    name: "x-parameter-conditions value changed",
    at: `${OP}/x-parameter-conditions`,
    old: [{ when: "icebergQty", require: { timeInForce: "GTC" } }],
    new: [{ when: "icebergQty", require: { timeInForce: "IOC" } }],
    want: ["breaking parameter-condition-changed"],
  },
  {
    name: "x-parameter-conditions condition removed",
    at: `${OP}/x-parameter-conditions`,
    old: [{ when: "icebergQty", require: { timeInForce: "GTC" } }],
    new: undefined,
    want: ["compatible parameter-condition-removed"],
  },
  {
    name: "x-parameter-placement removed",
    at: `${OP}/x-parameter-placement`,
    old: "query-or-form-body",
    new: undefined,
    want: ["breaking parameter-placement-narrowed"],
  },
  {
    name: "x-parameter-placement added",
    at: `${OP}/x-parameter-placement`,
    old: undefined,
    new: "query-or-form-body",
    want: ["compatible parameter-placement-widened"],
  },
  {
    name: "x-parameter-placement unknown value",
    at: `${OP}/x-parameter-placement`,
    old: "query-or-form-body",
    new: "body-only",
    want: ["breaking parameter-placement-changed"],
  },
  {
    name: "x-response-variant-by parameter changed",
    at: `${OP}/x-response-variant-by`,
    old: { parameter: "a", variants: { ACK: "#/components/schemas/Ack" } },
    new: { parameter: "b", variants: { ACK: "#/components/schemas/Ack" } },
    want: ["breaking response-variant-parameter-changed"],
  },
  {
    name: "x-response-variant-by variant removed",
    at: `${OP}/x-response-variant-by/variants`,
    old: { ACK: "#/components/schemas/Ack", FULL: "#/components/schemas/Full" },
    new: { ACK: "#/components/schemas/Ack" },
    want: ["breaking response-variant-removed"],
  },
  {
    name: "x-response-variant-by variant added",
    at: `${OP}/x-response-variant-by`,
    old: { parameter: "a", variants: { ACK: "#/components/schemas/Ack" } },
    new: { parameter: "a", variants: { ACK: "#/components/schemas/Ack", FULL: "#/components/schemas/Full" } },
    want: ["compatible response-variant-added"],
  },
  {
    name: "x-response-variant-by variant points at another shape",
    at: `${OP}/x-response-variant-by`,
    old: { parameter: "a", whenPresent: "#/components/schemas/Ack" },
    new: { parameter: "a", whenPresent: "#/components/schemas/Full" },
    want: ["breaking response-variant-changed"],
  },
  {
    name: "x-response-variant-by added",
    at: `${OP}/x-response-variant-by`,
    old: undefined,
    new: { parameter: "a", whenPresent: "#/components/schemas/Ack" },
    want: ["breaking response-variant-by-changed"],
  },
  { name: "x-weight changed", at: `${OP}/x-weight`, old: 1, new: 20, want: ["informational weight-changed"] },
  // what no rule names: the fallback reports it, conservatively
  {
    name: "readOnly set on a response property (it concerns requests only)",
    at: `${OK}/properties/id/readOnly`,
    old: undefined,
    new: true,
    want: ["informational readOnly-changed"],
  },
  {
    name: "a keyword of neither JSON Schema 2020-12 nor OpenAPI 3.1 added (an annotation to validators)",
    at: `${OK}/properties/id/nullable`,
    old: undefined,
    new: true,
    want: ["informational structural"],
  },
  {
    name: "unknown operation extension changed (no rule gives it a meaning)",
    at: `${OP}/x-rate-tier`,
    old: "a",
    new: "b",
    want: ["informational structural"],
  },
  {
    name: "servers changed",
    at: "/servers",
    old: [{ url: "https://a.example" }],
    new: [{ url: "https://b.example" }],
    want: ["informational servers-changed"],
  },
  {
    name: "servers of an operation added",
    at: `${OP}/servers`,
    old: undefined,
    new: [{ url: "https://b.example/v2" }],
    want: ["informational servers-changed"],
  },
  {
    name: "webhook added",
    at: "/webhooks",
    old: undefined,
    new: {
      filled: {
        post: {
          requestBody: { content: { "application/json": { schema: str } } },
          responses: { "200": { description: "ok" } },
        },
      },
    },
    want: ["compatible webhook-added"],
  },
  {
    name: "webhook removed",
    at: "/webhooks/filled",
    old: { post: { responses: { "200": { description: "ok" } } } },
    new: undefined,
    want: ["breaking webhook-removed"],
  },
  {
    name: "webhook payload gains an enum value: subscribers read it, so it breaks them",
    at: "/webhooks/filled/post/requestBody/content/application~1json/schema",
    old: { enum: ["NEW"] },
    new: { enum: ["NEW", "FILLED"] },
    want: ["breaking enum-wider"],
  },
  {
    name: "webhook payload property becomes required: subscribers get more, nothing breaks",
    at: "/webhooks/filled/post/requestBody/content/application~1json/schema",
    old: { type: "object", properties: { id: str } },
    new: { type: "object", properties: { id: str }, required: ["id"] },
    want: ["compatible property-became-required"],
  },
  {
    name: "webhook payload turns optional: subscribers may receive a request without it",
    at: "/webhooks/filled/post/requestBody/required",
    old: true,
    new: false,
    want: ["breaking webhook-payload-became-optional"],
  },
  {
    name: "webhook payload turns required: implementations must send it",
    at: "/webhooks/filled/post/requestBody/required",
    old: undefined,
    new: true,
    want: ["compatible webhook-payload-became-required"],
  },
  {
    name: "webhook payload gains a media type: subscribers cannot choose what they are sent",
    at: "/webhooks/filled/post/requestBody/content/text~1plain",
    old: undefined,
    new: { schema: str },
    want: ["breaking webhook-media-type-added"],
  },
  {
    name: "webhook payload removed",
    at: "/webhooks/filled/post/requestBody",
    old: { content: { "application/json": { schema: str } } },
    new: undefined,
    want: ["breaking webhook-payload-removed"],
  },
  {
    name: "webhook answer status removed: subscribers that answer it are taken to have failed",
    at: "/webhooks/filled/post/responses/202",
    old: { description: "accepted" },
    new: undefined,
    want: ["breaking webhook-answer-removed"],
  },
  {
    name: "webhook answer status added: implementations must handle it",
    at: "/webhooks/filled/post/responses/204",
    old: undefined,
    new: { description: "done" },
    want: ["compatible webhook-answer-added"],
  },
  {
    name: "callback removed from an operation",
    at: `${OP}/callbacks`,
    old: { done: { "{$request.body#/url}": { post: { responses: { "200": { description: "ok" } } } } } },
    new: undefined,
    want: ["breaking callback-removed"],
  },
  {
    name: "callback payload gains an enum value: judged as a webhook's",
    at: `${OP}/callbacks/done/{$request.body#~1url}/post/requestBody/content/application~1json/schema`,
    old: { enum: ["NEW"] },
    new: { enum: ["NEW", "FILLED"] },
    want: ["breaking enum-wider"],
  },
  {
    name: "a form body's encoding changed: the parts are written otherwise",
    at: `${BODY}/content/application~1x-www-form-urlencoded/encoding`,
    old: undefined,
    new: { qty: { style: "deepObject", explode: true } },
    want: ["breaking encoding-changed"],
  },
  {
    name: "a response's links changed: no request or answer changes",
    at: "/paths/~1o/post/responses/200/links",
    old: undefined,
    new: { next: { operationId: "op" } },
    want: ["informational structural"],
  },
  {
    name: "jsonSchemaDialect changed",
    at: "/jsonSchemaDialect",
    old: undefined,
    new: "https://spec.openapis.org/oas/3.1/dialect/base",
    want: ["breaking json-schema-dialect-changed"],
  },
  {
    name: "xml of a property changed where a body is XML",
    at: "/paths/~1o/post/responses/200/content/application~1xml",
    old: { schema: { type: "object", properties: { id: { type: "integer", xml: { name: "id" } } } } },
    new: { schema: { type: "object", properties: { id: { type: "integer", xml: { name: "ident" } } } } },
    want: ["breaking xml-different"],
  },
  {
    name: "discriminator propertyName changed: clients choose the type by another property",
    at: `${OK}/properties/v`,
    old: { oneOf: [str, { type: "integer" }], discriminator: { propertyName: "kind" } },
    new: { oneOf: [str, { type: "integer" }], discriminator: { propertyName: "type" } },
    want: ["breaking discriminator-changed"],
  },
  {
    name: "writeOnly set on a response property: it is no longer sent",
    at: `${OK}/properties/id/writeOnly`,
    old: undefined,
    new: true,
    want: ["breaking writeOnly-set"],
  },
  {
    name: "readOnly set on a request body property: clients may no longer send it",
    at: `${BODY}/content/application~1x-www-form-urlencoded/schema/properties/qty/readOnly`,
    old: undefined,
    new: true,
    want: ["breaking readOnly-set"],
  },
  {
    name: "request schema split into allOf parts that accept the same",
    at: `${BODY}/content/application~1x-www-form-urlencoded/schema`,
    old: { type: "object", properties: { qty: { type: "number" } } },
    new: { allOf: [{ type: "object" }, { properties: { qty: { type: "number" } } }] },
    want: [],
  },
  {
    name: "response schema wrapped in a one-item allOf with a description beside it",
    at: `${OK}/properties/side`,
    old: { enum: ["BUY", "SELL"] },
    new: { description: "side", allOf: [{ enum: ["BUY", "SELL"] }] },
    want: ["informational structural"],
  },
  {
    name: "anyOf alternatives reordered",
    at: `${OK}/properties/v`,
    old: { anyOf: [str, { type: "integer" }] },
    new: { anyOf: [{ type: "integer" }, str] },
    want: [],
  },
  {
    name: "response schema becomes nullable through a oneOf",
    at: `${OK}/properties/v`,
    old: str,
    new: { oneOf: [str, { type: "null" }] },
    want: ["breaking oneOf-wider"],
  },
  {
    name: "allOf parts that cannot be merged, restructured: undecided, not breaking",
    at: `${OK}/properties/v`,
    old: {
      allOf: [
        { type: "object", properties: { a: str }, additionalProperties: false },
        { properties: { b: str } },
      ],
    },
    new: {
      allOf: [
        { type: "object", properties: { a: str } },
        { properties: { b: str } },
        { additionalProperties: false },
      ],
    },
    want: ["undecided schema-undecided"],
  },
  {
    name: "allOf parts that cannot be merged, one part changed: compared part by part",
    at: `${OK}/properties/v`,
    old: { allOf: [{ pattern: "^a" }, { pattern: "b$", maxLength: 5 }] },
    new: { allOf: [{ pattern: "^a" }, { pattern: "b$", maxLength: 4 }] },
    want: ["compatible maxLength-narrower"],
  },
  {
    name: "callbacks added to an operation",
    at: `${OP}/callbacks`,
    old: undefined,
    new: { done: { "{$request.body#/url}": { post: { responses: { "200": { description: "ok" } } } } } },
    want: ["compatible callback-added"],
  },
  {
    name: "info description changed",
    at: "/info/description",
    old: "a",
    new: "b",
    want: ["informational structural"],
  },
  {
    name: "an unused component changed",
    at: "/components/schemas/Unused/maxLength",
    old: undefined,
    new: 3,
    want: ["informational unused-component"],
  },
];

describe("marketapi-diff rules: given an old and a new fragment, the classes reported", () => {
  it("has at least 40 kinds of change in its table", () => {
    expect(new Set(cases.flatMap((c) => c.want.map((w) => w.split(" ")[1]))).size).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)("$name", (given) => {
    const before = withFragment(given.at, given.old);
    const after = withFragment(given.at, given.new);
    if (given.name === "parameter $ref to an equal component")
      after.components.parameters = { Symbol: param({}) };
    if (given.name.includes("renamed to an equal schema"))
      after.components.schemas.AckToo = { type: "object" };
    if (given.name.startsWith("security: the document's default")) delete after.paths["/o"].post.security;
    const got = diffDocuments(before, after).map((c) => `${c.class} ${c.kind}`);
    expect(got.sort()).toEqual([...given.want].sort());
  });

  it("an extension the reader declares meaningful is breaking where it changes, on an operation and in a schema", () => {
    const changed = (at: string) =>
      diffDocuments(withFragment(at, "a"), withFragment(at, "b"), {
        meaningfulExtensions: ["x-rate-tier"],
      }).map((c) => `${c.class} ${c.kind}`);
    expect(changed(`${OP}/x-rate-tier`)).toEqual(["breaking structural"]);
    expect(changed(`${OK}/properties/id/x-rate-tier`)).toEqual(["breaking structural"]);
    expect(
      diffDocuments(withFragment(`${OP}/x-other`, "a"), withFragment(`${OP}/x-other`, "b"), {
        meaningfulExtensions: ["x-rate-tier"],
      }).map((c) => c.class),
    ).toEqual(["informational"]);
  });

  it("never changes its inputs", () => {
    const deepFreeze = (value: unknown): unknown => {
      if (typeof value === "object" && value !== null) {
        for (const inner of Object.values(value)) deepFreeze(inner);
        Object.freeze(value);
      }
      return value;
    };
    const before = deepFreeze(withFragment(`${OP}/x-weight`, 1)) as OpenApiDocument;
    const after = deepFreeze(withFragment(`${OP}/x-weight`, 2)) as OpenApiDocument;
    expect(diffDocuments(before, after).map((c) => c.kind)).toEqual(["weight-changed"]);
  });

  it("ends on recursive schemas, comparing each pair once", () => {
    const tree = {
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#/components/schemas/Node" } } },
    };
    const before = withFragment(OK, { $ref: "#/components/schemas/Node" });
    const after = withFragment(OK, { $ref: "#/components/schemas/Node" });
    before.components.schemas.Node = tree;
    after.components.schemas.Node = { ...tree, required: ["children"] };
    expect(diffDocuments(before, after).map((c) => `${c.class} ${c.kind} ${c.pointer}`)).toEqual([
      "compatible property-became-required /components/schemas/Node/required",
    ]);
  });
});
