/**
 * The mutant population and a seeded sample of it. The population is every mutant (operators.ts)
 * of the TypeScript files under the given folders of a package, as the files are when the sample
 * is drawn; a sampled mutant is kept only if the compiler accepts it (no syntax or type error in
 * its file: a slip the compiler rejects never reaches a server) and if it changes the JavaScript
 * the compiler emits. Each kept mutant comes with its emitted JavaScript, so that a server
 * process can load it in place of the built file without a rebuild.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { applyMutant, type MutantEdit, mutantsOf } from "./operators.js";

export interface Mutant extends MutantEdit {
  /** Short id for the report: file:line:column operator. */
  id: string;
  /**
   * The mutant's name that survives edits elsewhere in the file: file, scope, operator, the
   * original text, the replacement and the occurrence among identical ones in that scope. Hand
   * classifications (equivalents.json) are keyed by it.
   */
  key: string;
}

export interface ReadyMutant extends Mutant {
  /** The built file the mutant replaces (dist/engine/matching.js). */
  distFile: string;
  /** The JavaScript of the mutated file. */
  js: string;
  /** Where the mutated JavaScript first differs from the built file (to look up coverage). */
  jsOffset: number;
}

export interface SampleReport {
  population: number;
  drawn: number;
  rejectedByCompiler: number;
  unchangedOutput: number;
  mutants: ReadyMutant[];
}

/** Every TypeScript file under the folders, sorted, relative to the package. */
export function sourceFiles(packageDir: string, folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(path);
    }
  };
  for (const folder of folders) walk(join(packageDir, folder));
  const unbuilt = new Set(buildExcludes(packageDir));
  return files
    .map((f) => relative(packageDir, f).split("\\").join("/"))
    .filter((f) => !unbuilt.has(f))
    .sort();
}

/**
 * The files the package's build leaves out (tsconfig.build.json's `exclude`, plain paths only):
 * they have no built JavaScript for a mutant to replace, and the built server never runs them.
 */
function buildExcludes(packageDir: string): string[] {
  const config = join(packageDir, "tsconfig.build.json");
  if (!existsSync(config)) return [];
  const exclude: unknown = JSON.parse(readFileSync(config, "utf8")).exclude;
  return Array.isArray(exclude)
    ? exclude.filter((e): e is string => typeof e === "string" && !e.includes("*"))
    : [];
}

/** The whole population, with ids and stable keys. */
export function population(packageDir: string, folders: readonly string[]): Mutant[] {
  const all: Mutant[] = [];
  for (const file of sourceFiles(packageDir, folders)) {
    const seen = new Map<string, number>();
    for (const edit of mutantsOf(file, readFileSync(join(packageDir, file), "utf8"))) {
      const base = `${file}|${edit.scope}|${edit.operator}|${edit.original.replace(/\s+/g, " ").slice(0, 80)}|${edit.replacement}`;
      const occurrence = seen.get(base) ?? 0;
      seen.set(base, occurrence + 1);
      all.push({
        ...edit,
        id: `${file}:${edit.line}:${edit.column} ${edit.operator}`,
        key: `${base}|#${occurrence}`,
      });
    }
  }
  return all;
}

/**
 * The mutants in the sample's order: by a hash of the seed and each mutant's key, so that a
 * mutant's place does not depend on the rest of the population. An edit to one file changes
 * the sample only where that file's mutants were; the rest of the sample, and any results
 * recorded for it, stay valid.
 */
export function sampleOrder<T extends { key: string }>(items: readonly T[], seed: number): T[] {
  const rank = (item: T) => createHash("sha256").update(`${seed}:${item.key}`).digest("hex");
  return items
    .map((item) => ({ item, rank: rank(item) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
    .map((entry) => entry.item);
}

const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=.*\s*$/;

/**
 * Compiles single files of a package as its build does (its tsconfig.build.json), and judges
 * mutated versions of them with a language service: one program, updated one file at a time.
 */
export class PackageCompiler {
  private readonly options: ts.CompilerOptions;
  private readonly fileNames: string[];
  private readonly overrides = new Map<string, { text: string; version: number }>();
  private readonly service: ts.LanguageService;
  private readonly rootDir: string;
  private readonly outDir: string;

  constructor(readonly packageDir: string) {
    const configPath = join(packageDir, "tsconfig.build.json");
    const config = ts.readConfigFile(configPath, ts.sys.readFile);
    if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
    const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, packageDir);
    this.options = parsed.options;
    this.fileNames = parsed.fileNames;
    this.rootDir = parsed.options.rootDir ?? join(packageDir, "src");
    this.outDir = parsed.options.outDir ?? join(packageDir, "dist");
    const host: ts.LanguageServiceHost = {
      getCompilationSettings: () => this.options,
      getScriptFileNames: () => this.fileNames,
      getScriptVersion: (name) => String(this.overrides.get(name)?.version ?? 0),
      getScriptSnapshot: (name) => {
        const override = this.overrides.get(name);
        if (override) return ts.ScriptSnapshot.fromString(override.text);
        return existsSync(name) ? ts.ScriptSnapshot.fromString(readFileSync(name, "utf8")) : undefined;
      },
      getCurrentDirectory: () => packageDir,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
    };
    this.service = ts.createLanguageService(host, ts.createDocumentRegistry());
  }

  /** The built file of a source file (src/engine/x.ts → dist/engine/x.js). */
  distFileOf(file: string): string {
    return join(this.outDir, relative(this.rootDir, join(this.packageDir, file))).replace(/\.ts$/, ".js");
  }

  /** The JavaScript the build emits for this source text (without the source-map comment). */
  emit(file: string, text: string): string {
    const out = ts.transpileModule(text, {
      fileName: join(this.packageDir, file),
      compilerOptions: {
        ...this.options,
        // transpileModule cannot read package.json's "type": the package is ESM, so say so.
        module: ts.ModuleKind.ES2022,
        sourceMap: false,
        inlineSourceMap: false,
        declaration: false,
        declarationMap: false,
      },
    });
    return out.outputText.replace(SOURCE_MAP_COMMENT, "\n");
  }

  /** The built file as it is on disk, without its source-map comment. */
  built(file: string): string {
    return readFileSync(this.distFileOf(file), "utf8").replace(SOURCE_MAP_COMMENT, "\n");
  }

  /** The compiler's errors in the file when its text is `text` (syntax and types). */
  errors(file: string, text: string): string[] {
    const name = join(this.packageDir, file);
    const previous = this.overrides.get(name);
    this.overrides.set(name, { text, version: (previous?.version ?? 0) + 1 });
    try {
      return [
        ...this.service.getSyntacticDiagnostics(name),
        ...this.service.getSemanticDiagnostics(name),
      ].map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "));
    } finally {
      this.overrides.set(name, { text: readFileSync(name, "utf8"), version: (previous?.version ?? 0) + 2 });
    }
  }
}

/**
 * Files whose built JavaScript is not what the source compiles to now: dist is stale (or the
 * single-file emit differs from the build's), and mutants of them would be judged on other code.
 */
export function staleFiles(compiler: PackageCompiler, files: readonly string[]): string[] {
  return files.filter((file) => {
    const source = readFileSync(join(compiler.packageDir, file), "utf8");
    return compiler.emit(file, source) !== compiler.built(file);
  });
}

/** Draws mutants in seeded order until `count` of them compile and change the emitted code. */
export function drawSample(
  compiler: PackageCompiler,
  all: readonly Mutant[],
  seed: number,
  count: number,
  /** The compiler's verdicts from earlier draws, by file content and mutant (it is the slow part). */
  compiled: Map<string, boolean> = new Map(),
): SampleReport {
  const report: SampleReport = {
    population: all.length,
    drawn: 0,
    rejectedByCompiler: 0,
    unchangedOutput: 0,
    mutants: [],
  };
  const sources = new Map<string, string>();
  const emitted = new Map<string, string>();
  for (const mutant of sampleOrder(all, seed)) {
    if (report.mutants.length >= count) break;
    report.drawn += 1;
    let source = sources.get(mutant.file);
    if (source === undefined) {
      source = readFileSync(join(compiler.packageDir, mutant.file), "utf8");
      sources.set(mutant.file, source);
      emitted.set(mutant.file, compiler.emit(mutant.file, source));
    }
    const text = applyMutant(source, mutant);
    const original = emitted.get(mutant.file)!;
    const js = compiler.emit(mutant.file, text);
    if (js === original) {
      report.unchangedOutput += 1;
      continue;
    }
    const cacheKey = `${createHash("sha256").update(source).digest("hex").slice(0, 16)}|${mutant.key}`;
    let accepted = compiled.get(cacheKey);
    if (accepted === undefined) {
      accepted = compiler.errors(mutant.file, text).length === 0;
      compiled.set(cacheKey, accepted);
    }
    if (!accepted) {
      report.rejectedByCompiler += 1;
      continue;
    }
    let jsOffset = 0;
    while (jsOffset < js.length && js[jsOffset] === original[jsOffset]) jsOffset += 1;
    report.mutants.push({ ...mutant, distFile: compiler.distFileOf(mutant.file), js, jsOffset });
  }
  return report;
}

/** One mutant made ready to load: its emitted JavaScript, or why it is not a mutant to run. */
export function prepare(compiler: PackageCompiler, mutant: Mutant): ReadyMutant | { rejected: string } {
  const source = readFileSync(join(compiler.packageDir, mutant.file), "utf8");
  const text = applyMutant(source, mutant);
  const original = compiler.emit(mutant.file, source);
  const js = compiler.emit(mutant.file, text);
  if (js === original) return { rejected: "it changes no emitted code" };
  const errors = compiler.errors(mutant.file, text);
  if (errors.length > 0) return { rejected: `the compiler rejects it: ${errors[0]}` };
  let jsOffset = 0;
  while (jsOffset < js.length && js[jsOffset] === original[jsOffset]) jsOffset += 1;
  return { ...mutant, distFile: compiler.distFileOf(mutant.file), js, jsOffset };
}
