// Vendors' published documents (tools/spec-corpus, as their publishers ship them on npm; see
// scripts/spec-corpus.mjs), through codegen's default run (client and validators, no flags; the
// client alone for Stripe's sample, see SAMPLES): a fixed sample of each one's operations generated with --operations from the whole document,
// strict tsc over all of them at once, then every sampled operation called through its generated
// client against a recording server on 127.0.0.1, which checks what arrived on the wire: the
// method and path the spec gives, and for Stripe's nested form bodies and deepObject queries the
// exact bytes its documentation writes. The calls of stripe-calls.ts are type-checked and run
// alike, so a call strict tsc accepts is one that runs. The parameters of each call, made from
// the spec's own schemas, pass the generated request validators.
//
// The full job (MARKETAPI_CORPUS_FULL=1; see the README) adds Twilio and Blockfrost and takes every
// operation of each document: each document's whole default run in a project of its own under
// strict tsc, and a call of every operation.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { createApiClient } from "@marketapi/client";
import { buildSpecModel, type Operation } from "@marketapi/spec/model";
import { loadSpec } from "@marketapi/spec-loader";
import { createValidators } from "@marketapi/validators";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pickFixed, vendorSpec } from "../../../scripts/spec-corpus.mjs";
import { readClientModel } from "../src/client/client-operations.js";
import { type GeneratorName, generate } from "../src/generate.js";
import { buildModel } from "../src/spec-input/spec-model.js";
import { cleanScratch, REPO_ROOT, run, STRICT_TSCONFIG, scratchDir } from "./cli-support.js";
import { sampleOf } from "./corpus-values.js";

const FULL = process.env.MARKETAPI_CORPUS_FULL === "1";

interface Sample {
  id: string;
  /** Operations always in the sample (what the document is in the corpus for). */
  always?: string[];
  /** How many more, picked with a fixed seed. */
  count: number;
  /**
   * The sample's generators when not both (the full job always runs both): the schemas Stripe's
   * customers reach are half of its document, 4.9 MB of validators for three operations.
   */
  sampleGenerators?: GeneratorName[];
}

const SAMPLES: Sample[] = [
  // Nested form bodies (deepObject encoding) and deepObject queries (expand[]).
  {
    id: "stripe",
    always: ["PostCustomers", "GetCustomers", "PostCheckoutSessions"],
    count: 5,
    sampleGenerators: ["client"],
  },
  // $refs into #/paths/..., discriminator mappings naming files the bundle left out.
  { id: "digitalocean", count: 8 },
  // operationIds with '#', which the type generator writes as '/'.
  { id: "box", always: ["put_files_id#add_shared_link", "get_files_id#get_shared_link"], count: 4 },
  // free-form objects (filter: type object) in JSON query parameters; schema: null; a body that
  // requires properties it does not declare (createField: datatype, length).
  { id: "directus", always: ["createField"], count: 7 },
  ...(FULL
    ? [
        // form bodies, HTTP basic auth, path parameters with patterns
        { id: "twilio", count: 0 },
        // YAML, bytes bodies (application/cbor)
        { id: "blockfrost", count: 0 },
      ]
    : []),
];

interface Received {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}

const received: Received[] = [];
const server = createServer((request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    received.push({
      method: request.method ?? "",
      url: request.url ?? "",
      contentType: request.headers["content-type"],
      body: Buffer.concat(chunks).toString("utf8"),
    });
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
let baseUrl = "";
const dir = scratchDir("vendor-specs");
const picked = new Map<string, Operation[]>();

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "vendors", private: true, type: "module" }),
  );
  for (const project of PROJECTS) {
    writeFileSync(
      join(dir, tsconfigOf(project.name)),
      JSON.stringify({ ...STRICT_TSCONFIG, include: project.include }),
    );
  }
  mkdirSync(join(dir, "src"), { recursive: true });
  for (const [id, calls] of Object.entries(CALLS)) writeFileSync(join(dir, `src/${id}-calls.ts`), calls);
  for (const sample of SAMPLES) {
    const spec = vendorSpec(sample.id);
    const operations = sampleOf_(spec, sample);
    picked.set(sample.id, operations);
    // The default run: no flags but --operations (none in the full job).
    const generators = FULL ? undefined : sample.sampleGenerators;
    const files = await generate({
      spec,
      generators: generators ?? ["client", "validators"],
      operations: FULL ? undefined : operations.map((o) => o.operationId),
      command: `marketapi-codegen --spec ${sample.id} --out src/generated/${sample.id}`,
    });
    for (const file of files) {
      const path = join(dir, "src/generated", sample.id, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.contents);
    }
  }
}, 1_800_000);

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  cleanScratch(dir);
});

/** The sample of a document: its `always` operations, then `count` more picked with a fixed seed. */
function sampleOf_(spec: string, sample: Sample): Operation[] {
  const loaded = loadSpec(spec, { openApi30: "upgrade" });
  const operations = buildSpecModel(loaded.document).operations;
  if (FULL) return operations;
  const always = (sample.always ?? []).flatMap((id) => operations.filter((o) => o.operationId === id));
  expect(always.map((o) => o.operationId)).toEqual(sample.always ?? []);
  const rest = operations.filter((o) => !always.includes(o));
  return [...always, ...pickFixed(rest, sample.count)];
}

/**
 * What a request to `path` looks like on the wire: each `{name}` one segment; a `#...` ending (Box
 * tells operations of one path apart so) is a fragment, which never leaves the client.
 */
function routeOf(path: string): RegExp {
  const template = path.replace(/#.*$/, "").replace(/[.*+?^$()|[\]\\]/g, "\\$&");
  return new RegExp(`^${template.replace(/\{[^}]*\}/g, "[^/?]+")}(\\?|$)`);
}

/** One tsconfig per project (tsconfig.json for the sample's). */
function tsconfigOf(project: string): string {
  return FULL ? `tsconfig.${project}.json` : "tsconfig.json";
}

/** Calls whose bodies and queries nest, as Stripe's documentation writes them; type-checked and run. */
const STRIPE_CALLS = `import { createApiClient } from "@marketapi/client";
import { api } from "./generated/stripe/client.gen.js";

export async function stripeCalls(baseUrl: string): Promise<void> {
  const stripe = createApiClient(api, { baseUrl, bearerToken: "sk_test_corpus" });
  await stripe.PostCustomers({
    body: { address: { city: "Paris", line1: "1 rue" }, expand: ["tax"], metadata: { order: "6735" } },
  });
  await stripe.GetCustomers({ created: { gt: 1700000000 }, expand: ["data.default_source"], limit: 3 });
  await stripe.PostCheckoutSessions({
    body: {
      success_url: "https://example.com/ok",
      mode: "payment",
      line_items: [{ price: "price_1", quantity: 2 }],
    },
  });
}
`;

/** Calls that send what a Directus body requires without declaring it; type-checked and run. */
const DIRECTUS_CALLS = `import { createApiClient } from "@marketapi/client";
import { api } from "./generated/directus/client.gen.js";

export async function directusCalls(baseUrl: string): Promise<void> {
  const directus = createApiClient(api, { baseUrl, apiKey: "corpus-key" });
  await directus.createField({
    collection: "articles",
    body: { field: "title", type: "string", datatype: "VARCHAR", length: 255 },
  });
}
`;

/** Typed calls of a document's sample, by id: src/<id>-calls.ts, in that document's tsc project. */
const CALLS: Record<string, string> = { stripe: STRIPE_CALLS, directus: DIRECTUS_CALLS };

/** The strict tsc projects: one for the whole sample, or in the full job one per document. */
const PROJECTS: { name: string; include: string[] }[] = FULL
  ? SAMPLES.map(({ id }) => ({
      name: id,
      include: [`src/generated/${id}`, ...(CALLS[id] ? [`src/${id}-calls.ts`] : [])],
    }))
  : [{ name: "the sample of each document", include: ["src"] }];

describe("vendors' documents", () => {
  it.each(PROJECTS)(
    "pass strict tsc: $name",
    async ({ name }) => {
      const typed = await run(join(REPO_ROOT, "node_modules/.bin/tsc"), ["-p", tsconfigOf(name)], {
        cwd: dir,
      });
      expect(typed.stdout + typed.stderr).toBe("");
    },
    1_800_000,
  );

  it("Stripe: nested form bodies and deepObject queries arrive as its documentation writes them", async () => {
    const { stripeCalls } = await import(pathToFileURL(join(dir, "src/stripe-calls.ts")).href);
    const from = received.length;
    await stripeCalls(baseUrl);
    expect(received.slice(from).map(({ method, url, body }) => [method, decodeURI(url), body])).toEqual([
      [
        "POST",
        "/v1/customers",
        "address[city]=Paris&address[line1]=1%20rue&expand[]=tax&metadata[order]=6735",
      ],
      ["GET", "/v1/customers?created[gt]=1700000000&expand[]=data.default_source&limit=3", ""],
      [
        "POST",
        "/v1/checkout/sessions",
        "success_url=https%3A%2F%2Fexample.com%2Fok&mode=payment&line_items[0][price]=price_1&line_items[0][quantity]=2",
      ],
    ]);
  });

  it("Directus: a body sends the properties its schema requires without declaring them", async () => {
    const { directusCalls } = await import(pathToFileURL(join(dir, "src/directus-calls.ts")).href);
    const { api } = await import(pathToFileURL(join(dir, "src/generated/directus/client.gen.ts")).href);
    // Without credentials: refused in the API's own words (its security schemes, no class of ours).
    await expect(
      (createApiClient(api, { baseUrl }) as unknown as Record<string, (p: unknown) => Promise<unknown>>)
        .createField!({ collection: "c", body: {} }),
    ).rejects.toThrow("createField (security Auth or KeyAuth) needs apiKey: pass it in the client's options");
    const from = received.length;
    await directusCalls(baseUrl);
    expect(received.slice(from).map(({ method, url, body }) => [method, url, JSON.parse(body)])).toEqual([
      ["POST", "/fields/articles", { field: "title", type: "string", datatype: "VARCHAR", length: 255 }],
    ]);
  });

  it.each(SAMPLES)("$id: every sampled operation reaches its route, its parameters valid", async ({ id }) => {
    const spec = vendorSpec(id);
    const loaded = loadSpec(spec, { openApi30: "upgrade" });
    const client = readClientModel(buildModel({ source: spec, document: loaded.document }));
    const generated = join(dir, "src/generated", id);
    const { api: generatedApi } = await import(pathToFileURL(join(generated, "client.gen.ts")).href);
    const validators = existsSync(join(generated, "validators.gen.ts"))
      ? createValidators(await import(pathToFileURL(join(generated, "validators.gen.ts")).href))
      : undefined;
    const api = createApiClient(generatedApi, {
      baseUrl,
      apiKey: "corpus-key",
      bearerToken: "corpus-token",
      auth: Object.fromEntries(
        Object.entries(client.schemes)
          .filter(([, scheme]) => scheme.type === "http" && scheme.scheme === "basic")
          .map(([name]) => [name, { username: "corpus", password: "pw" }]),
      ),
    }) as unknown as Record<string, (params: unknown) => Promise<{ response: Response }>>;
    const document = buildSpecModel(loaded.document).document;
    const invalid: string[] = [];
    for (const operation of picked.get(id)!) {
      const { methodName, body } = client.operations.find(
        (c) => c.operation.operationId === operation.operationId,
      )!;
      const params: Record<string, unknown> = {};
      for (const parameter of operation.parameters) {
        if (parameter.required || parameter.in === "path")
          params[parameter.name] = sampleOf(document, parameter.schema);
      }
      const verdict = validators?.validateRequest(operation.operationId, params);
      if (verdict?.valid === false)
        invalid.push(`${operation.operationId}: ${JSON.stringify(verdict.errors)}`);
      if (body?.required) {
        const media = operation.requestBody!.content.find((c) => c.mediaType === body.mediaType);
        const value = sampleOf(document, media?.schema);
        params.body =
          /multipart|octet-stream|cbor/.test(body.mediaType) && typeof value !== "object" ? "bytes" : value;
      }
      const from = received.length;
      const { response } = await api[methodName]!(params);
      expect(response.status, operation.operationId).toBe(200);
      const [arrived] = received.slice(from);
      const route = routeOf(operation.path);
      expect([arrived?.method, arrived?.url.match(route) !== null], operation.operationId).toEqual([
        operation.method.toUpperCase(),
        true,
      ]);
    }
    expect(invalid).toEqual([]);
  });
});
