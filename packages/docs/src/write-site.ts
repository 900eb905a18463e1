// Writing a generated site to a folder: the files of generateSite as they are, and api.html from
// one `redocly build-docs --inlineBundle` run, checked before it is written. Used by the repository's
// build (build-command.ts) and by the published command (cli.ts).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { makeRedocPageOffline, type RedocJob, redocPageProblems } from "./redoc-page.js";
import type { Site } from "./site.js";

/** The build could not finish: Redoc failed, or its page is unfit to publish. */
export class BuildError extends Error {
  override name = "BuildError";
}

/** One file written, with its size. */
export interface WrittenFile {
  path: string;
  bytes: number;
}

/**
 * Writes `site` into `outDir` (created if needed; files of earlier builds with the same names are
 * replaced, nothing else is touched) and returns what it wrote. Redoc runs first, so a failed run
 * leaves the folder as it was.
 */
export function writeSite(site: Site, outDir: string): WrittenFile[] {
  const pages = [site.redoc, ...(site.sandboxRedoc ? [site.sandboxRedoc] : [])].map((job) => ({
    path: job.output,
    contents: runRedoc(job),
  }));
  mkdirSync(outDir, { recursive: true });
  const files = [...site.files, ...pages];
  for (const file of files) writeFileSync(join(outDir, file.path), file.contents);
  return files.map(({ path }) => ({ path, bytes: statSync(join(outDir, path)).size }));
}

export function runRedoc(job: RedocJob): string {
  const workDir = mkdtempSync(join(tmpdir(), "marketapi-docs-"));
  try {
    const specPath = join(workDir, "openapi.json");
    const configPath = join(workDir, "redocly.yaml");
    const templatePath = join(workDir, "page.hbs");
    const outputPath = join(workDir, job.output);
    writeFileSync(specPath, job.spec);
    writeFileSync(configPath, job.config);
    writeFileSync(templatePath, job.template);
    const cli = join(
      dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")),
      "bin",
      "cli.js",
    );
    const args = [
      cli,
      "build-docs",
      specPath,
      "--config",
      configPath,
      "--lint-config",
      "error",
      "--template",
      templatePath,
      "--title",
      job.title,
      "--inlineBundle",
      "--output",
      outputPath,
    ];
    const run = spawnSync(process.execPath, args, {
      cwd: workDir,
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off" },
    });
    if (run.status !== 0) {
      throw new BuildError(`redocly build-docs failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    const html = makeRedocPageOffline(readFileSync(outputPath, "utf8"));
    const problems = redocPageProblems(html, JSON.parse(job.spec));
    if (problems.length > 0) throw new BuildError(`${job.output}: ${problems.join("; ")}`);
    return html;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
