// The three renderings of a comparison: text for people at a terminal, Markdown for changelogs,
// JSON for machines. Each is a plain function of the changes.
import { type Change, type ChangeClass, countChanges } from "./change.js";

export interface Compared {
  old: { source: string; version: string };
  new: { source: string; version: string };
  changes: Change[];
}

const CLASSES: ChangeClass[] = ["breaking", "compatible", "informational"];
const HEADINGS: Record<ChangeClass, string> = {
  breaking: "Breaking changes",
  compatible: "Compatible changes",
  informational: "Informational changes",
};

export function summaryLine(compared: Compared): string {
  const counts = countChanges(compared.changes);
  return `${counts.breaking} breaking, ${counts.compatible} compatible, ${counts.informational} informational`;
}

export function renderText(compared: Compared): string {
  const lines = [
    `${compared.old.source} (${compared.old.version}) → ${compared.new.source} (${compared.new.version}): ${summaryLine(compared)}`,
  ];
  for (const cls of CLASSES) {
    const changes = compared.changes.filter((change) => change.class === cls);
    if (changes.length === 0) continue;
    lines.push("", `${HEADINGS[cls]} (${changes.length})`);
    let group: string | null = null;
    for (const change of changes) {
      const heading = change.operation ?? "shared components and document";
      if (heading !== group) lines.push(`  ${heading}`);
      group = heading;
      const where = change.in === "old" ? `${compared.old.source}#${change.pointer}` : change.pointer || "/";
      const follow =
        change.breaksImplementations && cls !== "breaking" ? " (implementations must follow)" : "";
      lines.push(`    ${where}: ${change.message}${follow}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Markdown: a heading per class, an item per change. `heading` is the first line, if any. */
export function renderMarkdown(compared: Compared, heading?: string): string {
  const lines: string[] = heading ? [heading, ""] : [];
  if (compared.changes.length === 0) return `${[...lines, "No changes to the API."].join("\n")}\n`;
  for (const cls of CLASSES) {
    const changes = compared.changes.filter((change) => change.class === cls);
    if (changes.length === 0) continue;
    lines.push(`### ${HEADINGS[cls]}`, "");
    for (const change of changes) {
      const where = change.operation ? `**${escapeMarkdown(change.operation)}**: ` : "";
      lines.push(`- ${where}${escapeMarkdown(change.message)} (\`${change.pointer || "/"}\`)`);
    }
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/([\\*_[\]<>|])/g, "\\$1");
}

export function renderJson(compared: Compared): string {
  return `${JSON.stringify({ ...compared, counts: countChanges(compared.changes) }, null, 2)}\n`;
}
