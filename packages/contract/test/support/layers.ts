// The tester's layers, as docs/architecture.md draws them, and the rules that hold them: a module
// imports only modules of its own layer or of layers below it, no import circle exists anywhere
// (type-only imports count: they are dependencies of the reader too), and a check module imports
// no other check. What a layer holds is the folder it lives in; the top layer is everything else
// (the runner, the command, the reports, the run's set-up).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";

/** Bottom first: each may import its own layer and those before it. */
export const LAYERS: ReadonlyArray<{ name: string; folders: readonly string[]; holds: string }> = [
  { name: "core", folders: ["core"], holds: "the spec as the tester reads it, decimals, errors" },
  { name: "http", folders: ["http"], holds: "requests, signing, the transport" },
  { name: "session", folders: ["session"], holds: "round trips, the budget, pacing, verdicts, coverage" },
  {
    name: "kit",
    folders: ["kit"],
    holds: "what checks share: the run's context, the market, values, orders",
  },
  {
    name: "checks",
    folders: ["checks", "explore"],
    holds: "one module per check; the exploration's machinery",
  },
  { name: "phases", folders: ["phases"], holds: "the run's phases, each calling the checks hooked on it" },
  { name: "top", folders: [""], holds: "the runner, the command, the reports, the target" },
];

/** The modules of `checks/` that are not checks: the descriptor type and the registry. */
const NOT_A_CHECK = new Set(["checks/check.ts", "checks/index.ts"]);

export function layerOf(file: string): number {
  const folder = file.includes("/") ? file.slice(0, file.indexOf("/")) : "";
  const found = LAYERS.findIndex((layer) => layer.folders.includes(folder));
  return found >= 0 ? found : LAYERS.length - 1;
}

/** Every .ts module under `dir`, relative to it, with the relative modules it imports (also relative to `dir`). */
export function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts")) {
        const file = relative(dir, path);
        const { importedFiles } = ts.preProcessFile(readFileSync(path, "utf8"), true, true);
        graph.set(
          file,
          importedFiles
            .map((ref) => ref.fileName)
            .filter((spec) => spec.startsWith("."))
            .map((spec) => normalize(join(dirname(file), spec)).replace(/\.js$/, ".ts")),
        );
      }
    }
  };
  walk(dir);
  return graph;
}

/** Each import that breaks a rule, said as `from → to: why`. */
export function layerViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const [file, imports] of graph) {
    for (const target of imports) {
      const from = layerOf(file);
      const to = layerOf(target);
      if (to > from) {
        out.push(`${file} → ${target}: ${LAYERS[from]!.name} imports ${LAYERS[to]!.name}, a layer above it`);
      } else if (
        isCheck(file) &&
        (isCheck(target) || (target.startsWith("explore/") && !ownsExploration(file)))
      ) {
        out.push(`${file} → ${target}: a check imports another check's code (shared code belongs in kit/)`);
      } else if (file.startsWith("explore/") && isCheck(target)) {
        out.push(`${file} → ${target}: the exploration imports a check (shared code belongs in kit/)`);
      }
    }
  }
  return out;
}

function isCheck(file: string): boolean {
  return file.startsWith("checks/") && !NOT_A_CHECK.has(file);
}

/** The one check whose code lives in explore/. */
function ownsExploration(file: string): boolean {
  return file === "checks/stateful-exploration.ts";
}

/** The import circles (strongly connected components of more than one module, or a module importing itself). */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) circles.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return circles;
}
