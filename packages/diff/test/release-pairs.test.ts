// What real releases of public specs did, as given/want tables. Each case is a small excerpt,
// written here, that reproduces the structure one change of a published release pair had (named
// in `source`); `want` is every change the diff must report for it, and nothing else. The
// excerpts keep the property names of the release so that a reader can find the change there.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type ChangeClass, diffDocuments, type OpenApiDocument } from "../src/index.js";

type Json = Record<string, unknown>;

const MUSEUM = "Redocly museum-openapi-example 1.1.1 → 1.2.1";
const TRAIN = "Bump.sh train-travel-api 1.0.0 → 1.1.0";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const text = { type: "string" };
const date = { type: "string", format: "date" };
const id = { type: "string", format: "uuid" };

/** One operation (POST /x, operationId op) with a JSON request body and a 200 answer, and components. */
function document(
  request: unknown,
  response: unknown,
  schemas: Json = {},
  extra: Json = {},
): OpenApiDocument {
  const json = (schema: unknown) => ({ content: { "application/json": { schema } } });
  return {
    openapi: "3.1.0",
    info: { title: "excerpt", version: "1.0.0" },
    paths: {
      "/x": {
        post: {
          operationId: "op",
          ...(request === undefined ? {} : { requestBody: { required: true, ...json(request) } }),
          responses: { "200": { description: "ok", ...json(response) } },
        },
      },
    },
    components: { schemas },
    ...extra,
  } as OpenApiDocument;
}

/** Several operations that answer with the same component. */
function sharedDocument(names: string[], schemas: Json): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: { title: "excerpt", version: "1.0.0" },
    paths: Object.fromEntries(
      names.map((name) => [
        `/${name}`,
        {
          get: {
            operationId: name,
            responses: {
              "200": { description: "ok", content: { "application/json": { schema: ref("Event") } } },
            },
          },
        },
      ]),
    ),
    components: { schemas },
  } as OpenApiDocument;
}

// buyMuseumTickets: one flat object became an inline part plus a $ref to a shared Ticket.
const flatTicketRequest = {
  type: "object",
  properties: { ticketType: text, eventId: id, ticketDate: date, email: text, phone: text },
  required: ["ticketType", "ticketDate", "email"],
};
const ticket = {
  type: "object",
  properties: { ticketId: id, ticketDate: date, ticketType: text, eventId: id },
  required: ["ticketType", "ticketDate"],
};
const splitTicketRequest = {
  type: "object",
  allOf: [{ type: "object", properties: { email: text } }, ref("Ticket")],
};
const flatConfirmation = {
  type: "object",
  properties: {
    message: text,
    eventName: text,
    ticketId: id,
    ticketType: text,
    ticketDate: date,
    confirmationCode: text,
  },
  required: ["message", "ticketId", "ticketType", "ticketDate", "confirmationCode"],
};
const splitConfirmation = {
  allOf: [
    ref("Ticket"),
    {
      type: "object",
      properties: { message: text, confirmationCode: text },
      required: ["message", "confirmationCode"],
    },
  ],
};
const event = (required: string[]) => ({
  type: "object",
  properties: { eventId: id, name: text, price: { type: "number" } },
  required,
});

interface Case {
  name: string;
  source: string;
  old: OpenApiDocument;
  new: OpenApiDocument;
  /** Every change, as "class kind operation(s)". */
  want: `${ChangeClass} ${string}`[];
}

const cases: Case[] = [
  {
    name: "a request body split into an inline part and a $ref to a shared schema: only the real differences",
    source: `${MUSEUM}, buyMuseumTickets request (BuyMuseumTicketsRequest → BuyMuseumTickets)`,
    old: document(ref("BuyMuseumTicketsRequest"), text, { BuyMuseumTicketsRequest: flatTicketRequest }),
    new: document(ref("BuyMuseumTickets"), text, { BuyMuseumTickets: splitTicketRequest, Ticket: ticket }),
    want: [
      "breaking property-removed POST /x (op)",
      "compatible property-added POST /x (op)",
      "compatible property-became-optional POST /x (op)",
    ],
  },
  {
    name: "a response split into a $ref to a shared schema and an inline part, without a type of its own",
    source: `${MUSEUM}, buyMuseumTickets 200 (BuyMuseumTicketsResponse → MuseumTicketsConfirmation)`,
    old: document(undefined, ref("BuyMuseumTicketsResponse"), { BuyMuseumTicketsResponse: flatConfirmation }),
    new: document(undefined, ref("MuseumTicketsConfirmation"), {
      MuseumTicketsConfirmation: splitConfirmation,
      Ticket: ticket,
    }),
    want: [
      "breaking property-removed POST /x (op)",
      "breaking property-became-optional POST /x (op)",
      "compatible property-added POST /x (op)",
    ],
  },
  {
    name: "the same release read backwards: the allOf merged back and Ticket inlined",
    source: `${MUSEUM}, reversed`,
    old: document(ref("BuyMuseumTickets"), ref("MuseumTicketsConfirmation"), {
      BuyMuseumTickets: splitTicketRequest,
      MuseumTicketsConfirmation: splitConfirmation,
      Ticket: ticket,
    }),
    new: document(ref("BuyMuseumTicketsRequest"), ref("BuyMuseumTicketsResponse"), {
      BuyMuseumTicketsRequest: flatTicketRequest,
      BuyMuseumTicketsResponse: flatConfirmation,
    }),
    want: [
      "breaking property-became-required POST /x (op)",
      "breaking property-removed POST /x (op)",
      "compatible property-added POST /x (op)",
      "compatible property-added POST /x (op)",
      "compatible property-became-required POST /x (op)",
      "breaking property-removed POST /x (op)",
    ],
  },
  {
    name: "a component renamed, its references following, the content equal",
    source: `${MUSEUM}, updateSpecialEvent request (UpdateSpecialEventRequest → SpecialEventFields)`,
    old: document(ref("UpdateSpecialEventRequest"), text, { UpdateSpecialEventRequest: event([]) }),
    new: document(ref("SpecialEventFields"), text, { SpecialEventFields: event([]) }),
    want: [],
  },
  {
    name: "a shared response schema loses a required property: one change, under every operation that answers it",
    source: `${MUSEUM}, SpecialEventResponse → SpecialEvent (eventId no longer required)`,
    old: sharedDocument(["listSpecialEvents", "getSpecialEvent", "createSpecialEvent"], {
      Event: event(["eventId", "name", "price"]),
    }),
    new: sharedDocument(["listSpecialEvents", "getSpecialEvent", "createSpecialEvent"], {
      Event: event(["name", "price"]),
    }),
    want: [
      "breaking property-became-optional GET /createSpecialEvent (createSpecialEvent), GET /getSpecialEvent (getSpecialEvent), GET /listSpecialEvents (listSpecialEvents)",
    ],
  },
  {
    name: "a webhook added",
    source: `${MUSEUM} (publishNewEvent)`,
    old: document(undefined, text),
    new: document(
      undefined,
      text,
      {},
      {
        webhooks: {
          publishNewEvent: {
            post: {
              operationId: "publishNewEvent",
              requestBody: { content: { "application/json": { schema: text } } },
              responses: { "202": { description: "accepted" } },
            },
          },
        },
      },
    ),
    want: ["compatible webhook-added webhook publishNewEvent (POST)"],
  },
  {
    name: "the server URL changed",
    source: `${MUSEUM} (servers[0].url)`,
    old: document(undefined, text, {}, { servers: [{ url: "https://api.example.com/v1.1" }] }),
    new: document(undefined, text, {}, { servers: [{ url: "https://example.com/_mock/museum-api" }] }),
    want: ["informational servers-changed"],
  },
  {
    name: "an array's items turned from a $ref into an allOf of it and two link schemas",
    source: `${TRAIN}, get-trips 200 data items (Trip → allOf [Trip, Links-Origin, Links-Destination])`,
    old: document(
      undefined,
      { type: "array", items: ref("Trip") },
      { Trip: { type: "object", properties: { id } } },
    ),
    new: document(
      undefined,
      { type: "array", items: { allOf: [ref("Trip"), ref("Links-Origin"), ref("Links-Destination")] } },
      {
        Trip: { type: "object", properties: { id } },
        "Links-Origin": { type: "object", properties: { self: { type: "string", format: "uri" } } },
        "Links-Destination": { type: "object", properties: { self: { type: "string", format: "uri" } } },
      },
    ),
    want: ["compatible property-added POST /x (op)"],
  },
  {
    name: "a real break beside the refactor is still breaking: a request property's type changed",
    source: `${TRAIN}, create-booking-payment (source.cvc integer → string)`,
    old: document({ type: "object", properties: { cvc: { type: "integer" } } }, text),
    new: document({ type: "object", properties: { cvc: { type: "string" } } }, text),
    want: ["breaking type-different POST /x (op)"],
  },
];

describe("marketapi-diff on restructures real releases made: given the old and the new excerpt, every change", () => {
  it.each(cases)("$name ($source)", (given) => {
    const got = diffDocuments(given.old, given.new).map(
      (change) =>
        `${change.class} ${change.kind}${change.operations ? ` ${change.operations.join(", ")}` : ""}`,
    );
    expect(got.sort()).toEqual([...given.want].sort());
  });
});

// The same restructures applied mechanically to every schema of this repository's spec (three
// kinds of rewrite that accept exactly what the original accepts): the diff must find nothing
// that a program sees.
const specPath = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "specs",
  "spot-api.openapi.yaml",
);
const spec: OpenApiDocument = parse(readFileSync(specPath, "utf8"));

/** Each node (bottom up) replaced by what `rewrite` makes of it. */
function rewritten(
  value: unknown,
  rewrite: (node: Json, path: string[]) => unknown,
  path: string[] = [],
): unknown {
  if (Array.isArray(value)) return value.map((item, i) => rewritten(item, rewrite, [...path, String(i)]));
  if (typeof value !== "object" || value === null) return value;
  const node = Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, rewritten(inner, rewrite, [...path, key])]),
  );
  return rewrite(node, path);
}

const isSchemaPlace = (path: string[]) =>
  path.includes("schemas") ||
  path.at(-1) === "schema" ||
  path.includes("properties") ||
  path.at(-1) === "items";

/** Every $ref to a schema replaced by a one-item allOf of a copy of its target (not inside itself). */
function inlined(document: OpenApiDocument): OpenApiDocument {
  const schemas = document.components.schemas as Json;
  const inline = (node: unknown, within: string[]): unknown =>
    rewritten(node, (n) => {
      const target =
        typeof n.$ref === "string" ? /^#\/components\/schemas\/(.+)$/.exec(n.$ref)?.[1] : undefined;
      if (target === undefined || within.includes(target)) return n;
      const { $ref: _, ...siblings } = n;
      return { ...siblings, allOf: [inline(schemas[target], [...within, target])] };
    });
  return { ...document, paths: inline(document.paths, []) as Json } as OpenApiDocument;
}

/** Every object schema with two or more properties split into two allOf parts. */
function split(document: OpenApiDocument): OpenApiDocument {
  return rewritten(document, (node, path) => {
    const properties = node.properties as Json | undefined;
    if (
      !isSchemaPlace(path) ||
      !properties ||
      typeof properties !== "object" ||
      node.additionalProperties !== undefined
    )
      return node;
    const names = Object.keys(properties);
    if (names.length < 2 || names.includes("$ref")) return node;
    const half = (from: number, to: number) => {
      const mine = names.slice(from, to);
      // A required name without a property here stays with the first part.
      const required = ((node.required as string[] | undefined) ?? []).filter(
        (r) => mine.includes(r) || (from === 0 && !names.includes(r)),
      );
      return {
        properties: Object.fromEntries(mine.map((n) => [n, properties[n]])),
        ...(required.length > 0 ? { required } : {}),
      };
    };
    const { properties: _, required: __, ...rest } = node;
    const middle = Math.ceil(names.length / 2);
    return {
      ...rest,
      allOf: [...((rest.allOf as unknown[]) ?? []), half(0, middle), half(middle, names.length)],
    };
  }) as OpenApiDocument;
}

describe("marketapi-diff on rewrites that accept the same: this repository's spec", () => {
  it.each([
    ["every schema $ref inlined", inlined],
    ["every object schema split into two allOf parts", split],
    ["both", (d: OpenApiDocument) => split(inlined(d))],
  ])("%s: no change a program sees", (_name, rewrite) => {
    const rewrittenSpec = rewrite(structuredClone(spec));
    expect(JSON.stringify(rewrittenSpec)).not.toBe(JSON.stringify(spec));
    const seen = diffDocuments(spec, rewrittenSpec).filter((change) => change.class !== "informational");
    expect(
      seen.map((change) => `${change.class} ${change.kind} ${change.pointer}: ${change.message}`),
    ).toEqual([]);
  });
});

// A fork as a user makes one: the product renamed in every text, three operations ours does not
// have (a path parameter, a JSON body, a bearer token), one schema refactored into allOf parts.
// Against this repository's spec, only real breaks are breaking.
function fork(edit: (document: OpenApiDocument) => void = () => {}): OpenApiDocument {
  const renamed = (value: unknown): unknown =>
    typeof value === "string"
      ? value.replace(/marketapi/gi, "acme")
      : Array.isArray(value)
        ? value.map(renamed)
        : typeof value === "object" && value !== null
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renamed(v)]))
          : value;
  const source = structuredClone(spec);
  edit(source);
  const copy = split(renamed(source) as OpenApiDocument);
  copy.info.title = "Acme Exchange API";
  const json = (schema: object) => ({ content: { "application/json": { schema } } });
  const ok = { "200": { description: "ok", ...json({ type: "object" }) } };
  copy.paths["/api/v3/order/{id}"] = {
    get: {
      operationId: "order_by_id",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
      responses: ok,
    },
  };
  copy.paths["/api/v3/alerts"] = {
    post: {
      operationId: "create_alert",
      requestBody: { required: true, ...json({ type: "object" }) },
      responses: ok,
    },
  };
  copy.paths["/api/v3/profile"] = {
    get: { operationId: "profile", security: [{ bearer: [] }], responses: ok },
  };
  copy.components.securitySchemes.bearer = { type: "http", scheme: "bearer" };
  return copy;
}

describe("marketapi-diff of a fork against this repository's spec", () => {
  it("calls nothing breaking: renamed texts, added operations, a refactor that accepts the same", () => {
    const changes = diffDocuments(spec, fork());
    expect(
      changes.filter((c) => c.class === "breaking" || c.class === "undecided").map((c) => c.message),
    ).toEqual([]);
    expect(
      changes
        .filter((c) => c.kind === "operation-added")
        .map((c) => c.operation)
        .sort(),
    ).toEqual([
      "GET /api/v3/order/{id} (order_by_id)",
      "GET /api/v3/profile (profile)",
      "POST /api/v3/alerts (create_alert)",
    ]);
  });

  it("calls a real break breaking: an operation removed, a response property dropped", () => {
    const broken = fork((document) => {
      delete document.paths["/api/v3/ping"];
      delete document.components.schemas.Order.allOf[1].properties.isWorking;
    });
    const breaking = diffDocuments(spec, broken).filter((c) => c.class === "breaking");
    expect(breaking.map((c) => c.kind).sort()).toEqual(["operation-removed", "property-removed"]);
  });
});
