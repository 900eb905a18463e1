#!/usr/bin/env node
// marketapi-diff OLD NEW: every change between two OpenAPI 3.1 or 3.0 documents, classified.
// Exit codes (@marketapi/command's table): 0 no breaking change, 1 a breaking or undecided change
// or a document at fault (located), 2 usage error, 3 an internal error (a crash never exits 1).
import { readFileSync } from "node:fs";
import { EXIT, parseCommandLine, reportUsage, UsageError } from "@marketapi/command";
import { MAX_INPUT_BYTES_ENV, maxInputBytes, SpecError } from "@marketapi/spec-loader";
import { diffDocuments } from "./diff.js";
import { loadSpec } from "./load-document.js";
import { type Compared, renderJson, renderMarkdown, renderText } from "./render.js";

const SHORT_USAGE =
  "Usage: marketapi-diff OLD NEW [--json | --markdown] (all options: marketapi-diff --help)";

const USAGE = `Usage: marketapi-diff OLD NEW [--json | --markdown]

Compares two OpenAPI 3.1 or 3.0 documents (3.0 is upgraded to 3.1 first, as marketapi-codegen
and marketapi-docs read it) and prints every change, classified breaking, compatible or
informational for clients of the API, with its JSON Pointer and a one-line reason. Vendor
extensions of marketapi (x-auth-class, x-signing, x-order-type-rules, ...) have rules of their own.

  OLD, NEW     a YAML or JSON file, or an installed package that exports openapi.json
               (such as @marketapi/spec)
  --json       machine-readable output: { old, new, counts, changes: [{ class, kind, pointer,
               in, operation, message, breaksImplementations }] }
  --markdown   Markdown, a section per class (for changelogs)
  --meaningful-extensions x-a,x-b
               extensions that carry meaning for your clients or servers: a change to one is
               breaking (others the diff has no rule for are informational)
  --max-input-bytes N
               refuse a document larger than N bytes (default 16 MiB, or ${MAX_INPUT_BYTES_ENV})
  --version    this command's version
  --help       this text

Exit codes (the same for every marketapi command): 0 no breaking change; 1 a breaking change, one
the diff cannot decide, or a document that cannot be read or is not OpenAPI 3.1 or 3.0 (the message
says file#pointer (line, column)); 2 usage error; 3 an internal error of the command.`;

function main(argv: string[]): number {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, {
      json: { type: "boolean", default: false },
      markdown: { type: "boolean", default: false },
      "max-input-bytes": { type: "string" },
      "meaningful-extensions": { type: "string" },
      help: { type: "boolean", default: false },
      version: { type: "boolean", default: false },
    });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return usage(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.version) {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    process.stdout.write(`${manifest.version}\n`);
    return 0;
  }
  if (positionals.length !== 2)
    return usage(`expected two documents, OLD and NEW; got ${positionals.length}`);
  if (values.json && values.markdown) return usage("--json and --markdown exclude each other");
  let maxBytes: number;
  try {
    maxBytes = maxInputBytes(values["max-input-bytes"] as string | undefined);
  } catch (error) {
    return usage((error as Error).message);
  }
  const meaningfulExtensions = String(values["meaningful-extensions"] ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter(Boolean);
  const notExtension = meaningfulExtensions.find((key) => !key.startsWith("x-"));
  if (notExtension !== undefined) {
    return usage(`--meaningful-extensions: ${JSON.stringify(notExtension)} is not an x- extension`);
  }
  const faults: string[] = [];
  const load = (spec: string) => {
    try {
      return loadSpec(spec, { maxBytes });
    } catch (error) {
      if (!(error instanceof SpecError)) throw error;
      faults.push(error.message);
      return undefined;
    }
  };
  const before = load(positionals[0]!);
  const after = load(positionals[1]!);
  if (!before || !after) {
    for (const fault of faults) process.stderr.write(`marketapi-diff: ${fault}\n`);
    return EXIT.fault;
  }
  const compared: Compared = {
    old: { source: before.source, version: String(before.document.info.version) },
    new: { source: after.source, version: String(after.document.info.version) },
    changes: diffDocuments(before.document, after.document, { meaningfulExtensions }),
  };
  const render = values.json ? renderJson : values.markdown ? renderMarkdown : renderText;
  process.stdout.write(render(compared));
  return compared.changes.some((c) => c.class === "breaking" || c.class === "undecided")
    ? EXIT.fault
    : EXIT.ok;
}

function usage(problem: string): number {
  return reportUsage("marketapi-diff", problem, SHORT_USAGE);
}

function guarded(argv: string[]): number {
  try {
    return main(argv);
  } catch (error) {
    process.stderr.write(`marketapi-diff: internal error: ${(error as Error).message ?? error}\n`);
    return EXIT.failed;
  }
}

process.exitCode = guarded(process.argv.slice(2));
