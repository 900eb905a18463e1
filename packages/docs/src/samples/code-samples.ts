// Spec → spec: every operation gets `x-codeSamples` (curl, TypeScript, Python) generated from the
// spec, and the introduction gets a section on how to run them. A pure function: the input is
// never modified.
import { operationEntries } from "@marketapi/spec/model";
import { type JsonObject, objectAt, stringAt } from "../json.js";
import { code, text } from "../markdown.js";
import { OPERATIONS_SECTION_TITLE } from "../vendor-extensions.js";
import { curlSample } from "./curl-sample.js";
import { pythonSample } from "./python-sample.js";
import {
  DEFAULT_SCENARIO,
  planRequests,
  type SampleRequest,
  type SampleScenario,
  sampleSequence,
} from "./sample-requests.js";
import { readSampleSpec, type SampleSpec } from "./sample-spec.js";
import { ENV } from "./sample-text.js";
import { typescriptSample } from "./typescript-sample.js";

export const CODE_SAMPLES_SECTION_TITLE = "Code samples";

/** The sample languages: `x-codeSamples` entries, and Redoc's language menu in this order. */
export const SAMPLE_LANGUAGES = [
  { lang: "bash", label: "curl", render: curlSample },
  { lang: "typescript", label: "TypeScript", render: typescriptSample },
  { lang: "python", label: "Python", render: pythonSample },
] as const;

/** Redoc's `codeSamples` option: exactly the sample languages (no generated ones, no payload tab). */
export const REDOC_CODE_SAMPLES = {
  languages: SAMPLE_LANGUAGES.map(({ lang, label }) => ({ lang, label })),
};

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

export function codeSamplesOf(request: SampleRequest, spec: SampleSpec): CodeSample[] {
  return SAMPLE_LANGUAGES.map(({ lang, label, render }) => ({ lang, label, source: render(request, spec) }));
}

/** Returns a copy of `document` with `x-codeSamples` on every operation and the samples' section. */
export function addCodeSamples(
  document: JsonObject,
  scenario: SampleScenario = DEFAULT_SCENARIO,
): JsonObject {
  const copy = structuredClone(document);
  const spec = readSampleSpec(copy);
  const requests = planRequests(spec, scenario);
  const byId = new Map(requests.map((request) => [request.operation.operationId, request]));
  for (const { operation } of operationEntries(copy)) {
    const request = byId.get(String(operation.operationId));
    if (request) operation["x-codeSamples"] = codeSamplesOf(request, spec);
  }
  const info = objectAt(copy.info);
  copy.info = info;
  info.description = insertSection(
    stringAt(info.description) ?? "",
    codeSamplesMarkdown(spec, sampleSequence(requests, scenario)),
  );
  return copy;
}

/** Inserts `section` right after the operations overview, or at the end when there is none. */
function insertSection(description: string, section: string): string {
  const headings = [...description.matchAll(/^## (.*)$/gm)];
  const overview = headings.findIndex((m) => m[1]?.trim() === OPERATIONS_SECTION_TITLE);
  const next = overview === -1 ? undefined : headings[overview + 1];
  if (next?.index === undefined) return `${description.trim()}\n\n${section}`;
  return `${description.slice(0, next.index).trim()}\n\n${section}\n\n${description.slice(next.index).trim()}`;
}

/** "`new_order` places a LIMIT BUY order with the client order id `x`; ..." from the placing request. */
function placingMarkdown(steps: ReturnType<typeof sampleSequence>): string {
  const placing = steps.find(({ request }) => request.operation.orderTypeRules !== undefined)?.request;
  if (!placing) return "";
  const value = (name: string) => placing.arguments.find((arg) => arg.parameter.name === name)?.text;
  const [type, side] = [value("type"), value("side")];
  const order = [type, side].filter((part) => part !== undefined).map((part) => text(part ?? ""));
  return `${code(placing.operation.operationId)} places a ${order.join(" ")} order priced far from the market, so that it rests on the book until the samples after it cancel it. `;
}

function codeSamplesMarkdown(spec: SampleSpec, steps: ReturnType<typeof sampleSequence>): string {
  const labels = SAMPLE_LANGUAGES.map(({ label }) => label);
  const languages = `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}`;
  const order = steps
    .map(({ request, repeat }) => `${code(request.operation.operationId)}${repeat ? " (again)" : ""}`)
    .join(" → ");
  return [
    `## ${CODE_SAMPLES_SECTION_TITLE}`,
    `Every operation has a sample in ${languages} (the menu above each sample switches language). They read ${code(ENV.baseUrl)} (default ${code(spec.baseUrl)}, where ${code("npx marketapi-server")} starts the reference server and prints its demo API key and secret), ${code(ENV.apiKey)} and ${code(ENV.apiSecret)} from the environment, and print the JSON answer. The shell samples need curl and openssl; the Python ones the standard library only; the TypeScript ones ${code("@marketapi/client")} and are ES modules (run them with ${code("npx tsx sample.ts")}).`,
    `Run them in this order and each one works: ${order}. ${placingMarkdown(steps)}The docs' tests run every sample, as printed here, in this order against the reference server.`,
  ].join("\n\n");
}
