// The code blocks of the repository's READMEs, as the README test runs them: every `ts` and `sh`
// block, with the mark written right before it, if any.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export type BlockLanguage = "ts" | "sh";

/** How a block is checked: run (the default), type-checked only, or not at all (with the reason). */
export type BlockMode = "run" | "typecheck-only" | "not-runnable";

export interface ReadmeBlock {
  /** The README, relative to the repository root. */
  file: string;
  /** The line of the opening fence (1-based). */
  line: number;
  language: BlockLanguage;
  mode: BlockMode;
  /** Why the block is not run, as its mark says. */
  reason?: string;
  code: string;
}

const LANGUAGES: Record<string, BlockLanguage> = {
  ts: "ts",
  typescript: "ts",
  sh: "sh",
  bash: "sh",
  shell: "sh",
  console: "sh",
};

const MARK = /^<!--\s*(not-runnable|typecheck-only)\s*:\s*(.*?)\s*-->$/;

/** The Markdown files the test reads: the root README, every package's README, and docs/. */
export function readmeFiles(repoDir: string): string[] {
  const packages = readdirSync(join(repoDir, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(repoDir, "packages", entry.name, "README.md"))
    .filter((path) => {
      try {
        readFileSync(path);
        return true;
      } catch {
        return false;
      }
    });
  const docs = readdirSync(join(repoDir, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => join(repoDir, "docs", name));
  return [join(repoDir, "README.md"), ...packages.sort(), ...docs.sort()].map((path) =>
    relative(repoDir, path),
  );
}

/**
 * The blocks of one Markdown text. A mark applies to the fence on the next non-blank line; a mark
 * with no reason, or with no ts/sh block after it, is an error (a mark must say why, and must mark
 * something).
 */
export function blocksOf(file: string, text: string): ReadmeBlock[] {
  const lines = text.split("\n");
  const blocks: ReadmeBlock[] = [];
  let pending: { mode: BlockMode; reason: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    const mark = MARK.exec(line);
    if (mark) {
      if (!mark[2])
        throw new Error(`${file}:${i + 1}: the mark ${mark[1]} needs a reason ("${mark[1]}: why")`);
      pending = { mode: mark[1] as BlockMode, reason: mark[2], line: i + 1 };
      continue;
    }
    const fence = /^```(\w*)/.exec(line);
    if (fence) {
      const end = lines.findIndex((l, j) => j > i && l.trim().startsWith("```"));
      if (end === -1) throw new Error(`${file}:${i + 1}: a code block that never closes`);
      const language = LANGUAGES[fence[1] ?? ""];
      if (language) {
        blocks.push({
          file,
          line: i + 1,
          language,
          mode: pending?.mode ?? "run",
          ...(pending ? { reason: pending.reason } : {}),
          code: `${lines.slice(i + 1, end).join("\n")}\n`,
        });
      } else if (pending) {
        throw new Error(`${file}:${pending.line}: the mark is not followed by a ts or sh block`);
      }
      pending = undefined;
      i = end;
      continue;
    }
    if (line !== "" && pending) {
      throw new Error(
        `${file}:${pending.line}: the mark is not followed by a code block (found "${line.slice(0, 40)}")`,
      );
    }
  }
  if (pending) throw new Error(`${file}:${pending.line}: the mark is not followed by a code block`);
  return blocks;
}
