// The layers of src/ import only downward, and no module reaches itself through its imports.
// Imports are read as TypeScript reads them (static and dynamic), not from the code that the
// generators write inside template strings.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

/** Lowest first: a module may import its own folder's modules and those of lower layers only. */
const LAYERS: readonly (readonly string[])[] = [
  ["generated-file.ts"],
  ["spec-input/"],
  // The generators, side by side: neither imports the other.
  ["client/", "validators/"],
  ["generate.ts", "write-files.ts"],
  ["command/"],
  ["cli.ts", "index.ts"],
];

/** The layer part (a file or a folder) a module belongs to, and its rank. */
function placeOf(module: string): { part: string; rank: number } {
  for (const [rank, parts] of LAYERS.entries()) {
    const part = parts.find((p) => (p.endsWith("/") ? module.startsWith(p) : module === p));
    if (part !== undefined) return { part, rank };
  }
  throw new Error(`src/${module} is in no layer: add it to LAYERS`);
}

function modulesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => file.split("\\").join("/"))
    .sort();
}

/** Each module's relative imports, as modules of src/ (`./x.js` → `x.ts`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const module of modulesUnder(SRC)) {
    const text = readFileSync(join(SRC, module), "utf8");
    const imported = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((file) => file.fileName)
      .filter((name) => name.startsWith("."))
      .map((name) =>
        relative(SRC, join(SRC, dirname(module), name))
          .split("\\")
          .join("/")
          .replace(/\.js$/, ".ts"),
      );
    graph.set(module, [...new Set(imported)]);
  }
  return graph;
}

/** Imports that go up a layer or across to a side part of the same layer: "from → to". */
function upwardImports(graph: Map<string, string[]>): string[] {
  const faults: string[] = [];
  for (const [module, imports] of graph) {
    const from = placeOf(module);
    for (const target of imports) {
      const to = placeOf(target);
      if (to.rank > from.rank || (to.rank === from.rank && to.part !== from.part))
        faults.push(`${module} → ${target}`);
    }
  }
  return faults;
}

/** Every cycle of imports, each written from its first module back to it. */
function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const visit = (module: string, path: string[]): void => {
    const at = path.indexOf(module);
    if (at >= 0) {
      found.push([...path.slice(at), module].join(" → "));
      return;
    }
    if (done.has(module)) return;
    for (const target of graph.get(module) ?? []) visit(target, [...path, module]);
    done.add(module);
  };
  for (const module of graph.keys()) visit(module, []);
  return found;
}

describe("codegen's layers", () => {
  const graph = importGraph();

  it("reads every module and its imports", () => {
    expect(graph.get("spec-input/check-structure.ts")).toContain("spec-input/document-places.ts");
    expect(graph.get("generate.ts")).toContain("client/generate-client.ts");
    // Every import names a module of src/.
    const dangling = [...graph].flatMap(([m, imports]) =>
      imports.filter((i) => !graph.has(i)).map((i) => `${m} → ${i}`),
    );
    expect(dangling).toEqual([]);
  });

  it("import only downward", () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it("have no cycle of imports", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it.each([
    { given: { "a.ts": ["b.ts"], "b.ts": ["a.ts"] }, want: ["a.ts → b.ts → a.ts"] },
    { given: { "a.ts": ["b.ts"], "b.ts": ["c.ts"], "c.ts": [] }, want: [] },
  ])("finds the cycles of $given", ({ given, want }) => {
    expect(cycles(new Map(Object.entries(given)))).toEqual(want);
  });

  it.each([
    {
      given: { "client/a.ts": ["validators/b.ts"], "validators/b.ts": [] },
      want: ["client/a.ts → validators/b.ts"],
    },
    {
      given: { "spec-input/a.ts": ["generate.ts"], "generate.ts": [] },
      want: ["spec-input/a.ts → generate.ts"],
    },
    { given: { "generate.ts": ["spec-input/a.ts"], "spec-input/a.ts": [] }, want: [] },
  ])("finds the upward imports of $given", ({ given, want }) => {
    expect(upwardImports(new Map(Object.entries(given)))).toEqual(want);
  });
});
