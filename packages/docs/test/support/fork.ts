// A fork of this repository's spec, as a user makes one: the product renamed everywhere (title,
// descriptions, servers), and three operations of kinds ours does not have: a path parameter, a
// JSON request body, and an HTTP bearer token.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import type { JsonObject } from "../../src/json.js";
import { PACKAGE_DIR } from "./dist.js";

export const FORK_TITLE = "Acme Exchange API";

const renamed = (value: unknown): unknown =>
  typeof value === "string"
    ? value.replace(/marketapi/gi, "acme")
    : Array.isArray(value)
      ? value.map(renamed)
      : typeof value === "object" && value !== null
        ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, renamed(inner)]))
        : value;

export function forkSpec(version = "1.2.0"): JsonObject {
  const ours = parse(readFileSync(join(PACKAGE_DIR, "..", "..", "specs", "spot-api.openapi.yaml"), "utf8"));
  const fork = renamed(ours) as JsonObject & { info: JsonObject; paths: JsonObject; components: JsonObject };
  fork.info = {
    ...fork.info,
    title: FORK_TITLE,
    version,
    contact: { name: "Acme API team", url: "https://acme.example/support" },
  };
  fork.externalDocs = { description: "Acme developer guide", url: "https://acme.example/guide" };
  const tags = ["Market data"];
  const json = (schema: object, example: unknown) => ({
    content: { "application/json": { schema, example } },
  });
  fork.paths["/api/v3/order/{id}"] = {
    get: {
      operationId: "order_by_id",
      summary: "An order by its id",
      tags,
      "x-auth-class": "none",
      "x-weight": 1,
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" }, example: 12 }],
      responses: { "200": { description: "The order.", ...json({ type: "object" }, { id: 12 }) } },
    },
  };
  fork.paths["/api/v3/alerts"] = {
    post: {
      operationId: "create_alert",
      summary: "Create a price alert",
      tags,
      "x-auth-class": "none",
      "x-weight": 1,
      requestBody: {
        required: true,
        ...json(
          { type: "object", required: ["symbol"], properties: { symbol: { type: "string" } } },
          { symbol: "BTCUSDT" },
        ),
      },
      responses: { "201": { description: "Created.", ...json({ type: "object" }, {}) } },
    },
  };
  fork.paths["/api/v3/profile"] = {
    get: {
      operationId: "profile",
      summary: "The caller's profile",
      tags,
      "x-auth-class": "none",
      "x-weight": 1,
      security: [{ bearer: [] }],
      responses: { "200": { description: "The profile.", ...json({ type: "object" }, {}) } },
    },
  };
  const components = fork.components as { securitySchemes: JsonObject };
  components.securitySchemes.bearer = { type: "http", scheme: "bearer" };
  return fork;
}

/**
 * The fork with every way a spec can make a Redoc page load something from the network: a remote
 * logo, Markdown images, HTML that loads (img, picture, iframe, script, link, video, a style's
 * url()), and an Example object's externalValue. The site must load none of them.
 */
export function withRemoteLoads(spec: JsonObject): JsonObject {
  const fork = structuredClone(spec) as JsonObject & { info: JsonObject; paths: JsonObject };
  fork.info["x-logo"] = { url: "https://logo.acme.example/logo.png" };
  fork.info.description = [
    String(fork.info.description ?? ""),
    "![Architecture](https://img.acme.example/arch.png)",
    '<img src="https://img.acme.example/banner.png" alt="banner">',
    '<iframe src="https://frame.acme.example/"></iframe>',
    '<link rel="stylesheet" href="https://css.acme.example/x.css">',
    "<div style=\"background-image: url('https://bg.acme.example/bg.png')\">styled</div>",
    '<video poster="https://video.acme.example/p.png" src="https://video.acme.example/v.mp4"></video>',
    '<picture><source srcset="https://img.acme.example/a.webp 1x"><img src="//img.acme.example/proto.png" alt="proto"></picture>',
  ].join("\n\n");
  const alerts = (fork.paths["/api/v3/alerts"] as JsonObject).post as JsonObject;
  alerts.description =
    'Creates an alert. ![flow](https://img.acme.example/flow.svg)\n\n<script src="https://js.acme.example/x.js"></script>';
  const created = ((alerts.responses as JsonObject)["201"] as JsonObject).content as JsonObject;
  created["application/json"] = {
    schema: { type: "object" },
    examples: {
      remote: { summary: "Stored elsewhere", externalValue: "https://ex.acme.example/alert.json" },
    },
  };
  return fork;
}
