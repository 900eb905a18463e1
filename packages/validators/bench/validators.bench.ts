// npm run bench (in packages/validators, after a build): the precompiled validators side by side
// with ajv compiling the same schema at run time and with @exodus/schemasafe, on the FHIR R4
// example Endpoints and on the new_order FULL response of the spec; then cold start in fresh
// processes. Prints medians and the ratios against the targets of the package README.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { validator as schemasafe } from "@exodus/schemasafe";
import { loadEndpointSchema, loadOpenApi } from "@marketapi/spec";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule.default;
const require = createRequire(import.meta.url);
const distIndex = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const fixtures = fileURLToPath(new URL("../../../specs/examples/endpoint/valid/", import.meta.url));

type Check = (data: unknown) => unknown;
interface Contender {
  name: string;
  check: Check;
  /** Reads a verdict from what `check` returns. */
  passed: (result: unknown) => boolean;
}
const isTrue = (result: unknown) => result === true;
const isValid = (result: unknown) => (result as { valid: boolean }).valid;

const ours = (await import(pathToFileURL(distIndex).href)) as typeof import("../src/index.js");

// ---- inputs -------------------------------------------------------------------------------
const endpoints = readdirSync(fixtures)
  .filter((f) => f.startsWith("r4-endpoint-example"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(fixtures, f), "utf8")) as unknown);
const openapi = loadOpenApi() as {
  components: { schemas: Record<string, unknown> };
  // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is untyped bench input
  paths: Record<string, any>;
};
const fullOrder = openapi.paths["/api/v3/order"].post.responses["200"].content["application/json"]
  .example as unknown;

// ---- the same schemas for ajv and schemasafe ----------------------------------------------
const endpointSchema = loadEndpointSchema();
const defs = JSON.parse(
  JSON.stringify(openapi.components.schemas).replaceAll("#/components/schemas/", "#/$defs/"),
);
const orderSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $ref: "#/$defs/NewOrderFull",
  $defs: defs,
};

function ajvCompile(schema: object): Check {
  // The options of the precompiled code: strict mode, every error, ajv-formats; `example` is an
  // annotation of the OpenAPI dialect, registered as such.
  const ajv = new Ajv2020({ strict: true, allErrors: true, keywords: ["example"] });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** schemasafe accepts `format` on strings only: int32/int64 on integers are dropped for it. */
function withoutNumberFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutNumberFormats);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" && (node as { type?: string }).type !== "string") continue;
    if (key === "example") continue;
    out[key] = withoutNumberFormats(value);
  }
  return out;
}

function schemasafeCompile(schema: object): Check {
  return schemasafe(withoutNumberFormats(schema) as object, {
    includeErrors: true,
    allErrors: true,
  }) as Check;
}

const endpointContenders: Contender[] = [
  { name: "@marketapi/validators validateEndpoint", check: ours.validateEndpoint, passed: isValid },
  { name: "ajv 8.20, compiled at run time", check: ajvCompile(endpointSchema), passed: isTrue },
  { name: "@exodus/schemasafe 1.3.0", check: schemasafeCompile(endpointSchema), passed: isTrue },
];
const orderContenders: Contender[] = [
  {
    name: "@marketapi/validators responseValidator",
    check: ours.responseValidator("new_order", 200, { variant: "FULL" }),
    passed: isValid,
  },
  { name: "ajv 8.20, compiled at run time", check: ajvCompile(orderSchema), passed: isTrue },
  { name: "@exodus/schemasafe 1.3.0", check: schemasafeCompile(orderSchema), passed: isTrue },
  {
    name: "@marketapi/validators validateResponse",
    check: (d) => ours.validateResponse("new_order", 200, d, { variant: "FULL" }),
    passed: isValid,
  },
];

// ---- throughput ---------------------------------------------------------------------------
let sink = 0;

/** Validations per second over `iterations` passes through `inputs`. */
function sample(check: Check, inputs: unknown[], iterations: number): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) for (const input of inputs) if (check(input)) sink++;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return (iterations * inputs.length) / seconds;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Medians over rounds in which every contender runs once, in turn, for about 100 ms. */
function throughput(contenders: Contender[], inputs: unknown[], rounds = 15): number[] {
  for (const c of contenders) {
    for (const input of inputs)
      if (!c.passed(c.check(input))) throw new Error(`${c.name} rejects a bench input`);
  }
  const iterations = contenders.map((c) => {
    sample(c.check, inputs, 2000); // warm up
    const rate = sample(c.check, inputs, 2000);
    return Math.max(1, Math.round((rate * 0.1) / inputs.length));
  });
  const rates = contenders.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    for (const [i, c] of contenders.entries()) rates[i]!.push(sample(c.check, inputs, iterations[i]!));
  }
  return rates.map(median);
}

// ---- cold start ---------------------------------------------------------------------------
const url = (specifier: string) => pathToFileURL(require.resolve(specifier)).href;
const work = mkdtempSync(join(tmpdir(), "validators-bench-"));
writeFileSync(join(work, "endpoint.json"), JSON.stringify(endpoints[0]));
writeFileSync(join(work, "order.json"), JSON.stringify(fullOrder));
writeFileSync(join(work, "endpoint.schema.json"), JSON.stringify(endpointSchema));
writeFileSync(join(work, "order.schema.json"), JSON.stringify(orderSchema));

const coldScripts = {
  "ours-endpoint": `
    const data = JSON.parse(readFileSync(${JSON.stringify(join(work, "endpoint.json"))}, "utf8"));
    const t0 = performance.now();
    const { validateEndpoint } = await import(${JSON.stringify(pathToFileURL(distIndex).href)});
    const ok = validateEndpoint(data).valid;`,
  "ajv-endpoint": `
    const data = JSON.parse(readFileSync(${JSON.stringify(join(work, "endpoint.json"))}, "utf8"));
    const schema = JSON.parse(readFileSync(${JSON.stringify(join(work, "endpoint.schema.json"))}, "utf8"));
    const t0 = performance.now();
    const { Ajv2020 } = await import(${JSON.stringify(url("ajv/dist/2020.js"))});
    const addFormats = (await import(${JSON.stringify(url("ajv-formats"))})).default;
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    const ok = ajv.compile(schema)(data);`,
  "ours-order": `
    const data = JSON.parse(readFileSync(${JSON.stringify(join(work, "order.json"))}, "utf8"));
    const t0 = performance.now();
    const { validateResponse } = await import(${JSON.stringify(pathToFileURL(distIndex).href)});
    const ok = validateResponse("new_order", 200, data, { variant: "FULL" }).valid;`,
  "ajv-order": `
    const data = JSON.parse(readFileSync(${JSON.stringify(join(work, "order.json"))}, "utf8"));
    const schema = JSON.parse(readFileSync(${JSON.stringify(join(work, "order.schema.json"))}, "utf8"));
    const t0 = performance.now();
    const { Ajv2020 } = await import(${JSON.stringify(url("ajv/dist/2020.js"))});
    const addFormats = (await import(${JSON.stringify(url("ajv-formats"))})).default;
    const ajv = new Ajv2020({ strict: true, allErrors: true, keywords: ["example"] });
    addFormats(ajv);
    const ok = ajv.compile(schema)(data);`,
};
for (const [name, body] of Object.entries(coldScripts)) {
  writeFileSync(
    join(work, `${name}.mjs`),
    `import { readFileSync } from "node:fs";\n${body}\nif (!ok) throw new Error("invalid");\nconsole.log(performance.now() - t0);\n`,
  );
}

/** Median in-process time (import to first verdict) and median process wall time, in ms. */
function coldStart(names: string[], runs = 11): Record<string, { inProcess: number; wall: number }> {
  const times = Object.fromEntries(
    names.map((n) => [n, { inProcess: [] as number[], wall: [] as number[] }]),
  );
  for (let run = 0; run < runs; run++) {
    for (const name of names) {
      const started = performance.now();
      const child = spawnSync(process.execPath, [join(work, `${name}.mjs`)], { encoding: "utf8" });
      const wall = performance.now() - started;
      if (child.status !== 0) throw new Error(`${name}: ${child.stderr}`);
      times[name]!.inProcess.push(Number(child.stdout.trim()));
      times[name]!.wall.push(wall);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([n, t]) => [n, { inProcess: median(t.inProcess), wall: median(t.wall) }]),
  );
}

// ---- report -------------------------------------------------------------------------------
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const row = (cells: string[], widths: number[]) =>
  `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
const lines: string[] = [];
function table(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  lines.push(
    row(header, widths),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map((r) => row(r, widths)),
  );
}
const verdict = (value: number, target: number) =>
  `${value.toFixed(2)}× (target ≥ ${target}×: ${value >= target ? "met" : "MISSED"})`;

console.log(
  `node ${process.version}, ${process.platform}/${process.arch}; medians of 15 rounds (throughput), 11 fresh processes (cold start)\n`,
);
const throughputRows: string[][] = [];
const rateOf: Record<string, number> = {};
for (const [label, contenders, inputs] of [
  ["R4 example Endpoints (4)", endpointContenders, endpoints],
  ["new_order FULL response", orderContenders, [fullOrder]],
] as const) {
  const rates = throughput(contenders as Contender[], inputs as unknown[]);
  const ajvRate = rates[1]!;
  (contenders as Contender[]).forEach((c, i) => {
    rateOf[`${label}|${c.name}`] = rates[i]!;
    throughputRows.push([label, c.name, fmt(rates[i]!), `${(rates[i]! / ajvRate).toFixed(2)}×`]);
  });
}
table(["input", "validator", "validations/s", "vs ajv"], throughputRows);
const throughputTable = [...lines];

const cold = coldStart(Object.keys(coldScripts));
lines.length = 0;
table(
  ["cold start", "import + first verdict (ms)", "whole process (ms)"],
  [
    [
      "@marketapi/validators, Endpoint",
      cold["ours-endpoint"]!.inProcess.toFixed(1),
      cold["ours-endpoint"]!.wall.toFixed(0),
    ],
    [
      "ajv import + compile, Endpoint",
      cold["ajv-endpoint"]!.inProcess.toFixed(1),
      cold["ajv-endpoint"]!.wall.toFixed(0),
    ],
    [
      "@marketapi/validators, new_order FULL",
      cold["ours-order"]!.inProcess.toFixed(1),
      cold["ours-order"]!.wall.toFixed(0),
    ],
    [
      "ajv import + compile, new_order FULL",
      cold["ajv-order"]!.inProcess.toFixed(1),
      cold["ajv-order"]!.wall.toFixed(0),
    ],
  ],
);
const coldTable = [...lines];

console.log(throughputTable.join("\n"));
console.log();
console.log(coldTable.join("\n"));
console.log();
const rate = (label: string, name: string) => rateOf[`${label}|${name}`]!;
const E = "R4 example Endpoints (4)";
const O = "new_order FULL response";
const AJV = "ajv 8.20, compiled at run time";
const SAFE = "@exodus/schemasafe 1.3.0";
const OURS_E = "@marketapi/validators validateEndpoint";
const OURS_O = "@marketapi/validators responseValidator";
console.log(`Endpoint throughput vs ajv:        ${verdict(rate(E, OURS_E) / rate(E, AJV), 0.95)}`);
console.log(`Endpoint throughput vs schemasafe: ${verdict(rate(E, OURS_E) / rate(E, SAFE), 1.2)}`);
console.log(`Order throughput vs ajv:           ${verdict(rate(O, OURS_O) / rate(O, AJV), 0.95)}`);
console.log(`Order throughput vs schemasafe:    ${verdict(rate(O, OURS_O) / rate(O, SAFE), 1.2)}`);
console.log(
  `Endpoint cold start vs ajv:        ${verdict(cold["ajv-endpoint"]!.inProcess / cold["ours-endpoint"]!.inProcess, 10)}`,
);
console.log(
  `Order cold start vs ajv:           ${verdict(cold["ajv-order"]!.inProcess / cold["ours-order"]!.inProcess, 10)}`,
);

// ---- hostile input (the tests prove these linear by counting; the times are printed here) ----
const base = { resourceType: "Endpoint", connectionType: { code: "x" }, payloadType: [{ text: "a" }] };
const hostile: [string, unknown][] = [
  [
    "payloadMimeType item: 1 MB of one token plus two spaces",
    { ...base, payloadMimeType: [`${"a".repeat(1 << 20)}  `] },
  ],
  [
    "payloadMimeType item: 1 MB of tokens ending in a tab run",
    { ...base, payloadMimeType: [`${"a b".repeat(349_525)}\t\t`] },
  ],
  [
    "payloadMimeType: 100,000 invalid items",
    { ...base, payloadMimeType: Array.from({ length: 100_000 }, () => " x") },
  ],
];
console.log();
lines.length = 0;
table(
  ["hostile Endpoint (validateEndpoint)", "median of 7"],
  hostile.map(([label, data]) => {
    const times = Array.from({ length: 7 }, () => {
      const started = process.hrtime.bigint();
      ours.validateEndpoint(data);
      return Number(process.hrtime.bigint() - started) / 1e6;
    });
    return [label, `${median(times).toFixed(1)} ms`];
  }),
);
console.log(lines.join("\n"));
rmSync(work, { recursive: true, force: true });
if (sink < 0) console.log(sink);
