import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { GENERATED_MARKER, type GeneratedFile } from "./generated-file.js";

export interface OutputDifference {
  path: string;
  change: "added" | "changed" | "removed";
}

/**
 * Compares the files in `outDir` with `files`: generated files that would be written differently,
 * added, or removed (a file carrying the generated-file marker that is no longer generated).
 * Files without the marker are not ours and are never reported.
 */
export function diffOutput(outDir: string, files: GeneratedFile[]): OutputDifference[] {
  const differences: OutputDifference[] = [];
  const wanted = new Set(files.map((f) => f.path));
  for (const file of files) {
    const target = join(outDir, file.path);
    if (!existsSync(target)) differences.push({ path: file.path, change: "added" });
    else if (readFileSync(target, "utf8") !== file.contents)
      differences.push({ path: file.path, change: "changed" });
  }
  for (const path of listGeneratedFiles(outDir)) {
    if (!wanted.has(path)) differences.push({ path, change: "removed" });
  }
  return differences.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * Writes the files under `outDir`, each through a temporary file and a rename so that no reader
 * ever sees half a file, and deletes generated files that are no longer generated.
 */
export function writeOutput(outDir: string, files: GeneratedFile[]): OutputDifference[] {
  assertSafePaths(files);
  const differences = diffOutput(outDir, files);
  for (const { path, change } of differences) {
    const target = join(outDir, path);
    if (change === "removed") {
      rmSync(target);
      continue;
    }
    const file = files.find((f) => f.path === path)!;
    mkdirSync(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.tmp`;
    writeFileSync(temporary, file.contents);
    renameSync(temporary, target);
  }
  return differences;
}

function listGeneratedFiles(outDir: string): string[] {
  if (!existsSync(outDir)) return [];
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && readFileSync(full, "utf8").slice(0, 300).includes(GENERATED_MARKER)) {
        found.push(relative(outDir, full).split(sep).join("/"));
      }
    }
  };
  walk(outDir);
  return found;
}

function assertSafePaths(files: GeneratedFile[]): void {
  const seen = new Set<string>();
  for (const { path } of files) {
    if (path.startsWith("/") || path.split("/").includes("..")) {
      throw new Error(`generated file path must stay inside the output folder, got "${path}"`);
    }
    if (seen.has(path)) throw new Error(`two generators emit the same file "${path}"`);
    seen.add(path);
  }
}
