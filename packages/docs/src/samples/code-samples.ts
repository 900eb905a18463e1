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

export type SampleLanguage = (typeof SAMPLE_LANGUAGES)[number]["label"];

/** How a build wants its samples. */
export interface SampleOptions {
  /** The languages, of SAMPLE_LANGUAGES (default: all). TypeScript samples call @marketapi/client. */
  languages?: readonly SampleLanguage[];
  /**
   * This repository's build: every operation must have samples, and the page says that the tests
   * run them against the reference server (`npx marketapi-server`). Otherwise an operation the
   * samples cannot write is listed, with why, and nothing is claimed about tests.
   */
  tested?: boolean;
}

/** The languages chosen, in the menu's order. */
export function chosenLanguages(options: SampleOptions) {
  return SAMPLE_LANGUAGES.filter(({ label }) => options.languages?.includes(label) ?? true);
}

/** "curl, TypeScript and Python". */
export function languagesText(options: SampleOptions): string {
  const labels = chosenLanguages(options).map(({ label }) => label);
  return labels.length > 1 ? `${labels.slice(0, -1).join(", ")} and ${labels.at(-1)}` : (labels[0] ?? "");
}

export function codeSamplesOf(
  request: SampleRequest,
  spec: SampleSpec,
  options: SampleOptions = {},
): CodeSample[] {
  return chosenLanguages(options).map(({ lang, label, render }) => ({
    lang,
    label,
    source: render(request, spec),
  }));
}

/** Returns a copy of `document` with `x-codeSamples` on every operation and the samples' section. */
export function addCodeSamples(
  document: JsonObject,
  scenario: SampleScenario = DEFAULT_SCENARIO,
  options: SampleOptions = { tested: true },
): JsonObject {
  const copy = structuredClone(document);
  if (chosenLanguages(options).length === 0) return copy;
  const spec = readSampleSpec(copy, { strict: options.tested === true });
  const requests = planRequests(spec, scenario);
  const byId = new Map(requests.map((request) => [request.operation.operationId, request]));
  for (const { operation } of operationEntries(copy)) {
    const request = byId.get(String(operation.operationId));
    if (request) operation["x-codeSamples"] = codeSamplesOf(request, spec, options);
  }
  const info = objectAt(copy.info);
  copy.info = info;
  info.description = insertSection(
    stringAt(info.description) ?? "",
    codeSamplesMarkdown(spec, sampleSequence(requests, scenario), options),
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

function codeSamplesMarkdown(
  spec: SampleSpec,
  steps: ReturnType<typeof sampleSequence>,
  options: SampleOptions,
): string {
  const chosen = chosenLanguages(options).map(({ label }) => label);
  const order = steps
    .map(({ request, repeat }) => `${code(request.operation.operationId)}${repeat ? " (again)" : ""}`)
    .join(" → ");
  const where = options.tested
    ? `, where ${code("npx marketapi-server")} starts the reference server and prints its demo API key and secret`
    : "";
  const needs = [
    chosen.includes("curl") ? "The shell samples need curl and openssl" : "",
    chosen.includes("Python") ? "the Python ones the standard library only" : "",
    chosen.includes("TypeScript")
      ? `the TypeScript ones ${code("@marketapi/client")} and are ES modules (run them with ${code("npx tsx sample.ts")})`
      : "",
  ].filter(Boolean);
  const every = spec.skipped.length > 0 ? "Each operation but those listed below has" : "Every operation has";
  const skipped =
    spec.skipped.length > 0
      ? `No sample for: ${spec.skipped.map(({ operationId, reason }) => `${code(operationId)} (${text(reason)})`).join("; ")}.`
      : "";
  return [
    `## ${CODE_SAMPLES_SECTION_TITLE}`,
    `${every} a sample in ${languagesText(options)} (the menu above each sample switches language). They read ${code(ENV.baseUrl)} (default ${code(spec.baseUrl)}${where}), ${code(ENV.apiKey)} and ${code(ENV.apiSecret)} from the environment, and print the JSON answer.${needs.length > 0 ? ` ${needs.join("; ")}.` : ""}`,
    options.tested
      ? `Run them in this order and each one works: ${order}. ${placingMarkdown(steps)}The docs' tests run every sample, as printed here, in this order against the reference server.`
      : `They are written to run in this order: ${order}. ${placingMarkdown(steps)}`.trim(),
    skipped,
  ]
    .filter(Boolean)
    .join("\n\n");
}
