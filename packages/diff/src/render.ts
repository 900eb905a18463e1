// The three renderings of a comparison: text for people at a terminal, Markdown for changelogs,
// JSON for machines. Each is a plain function of the changes.
import { type Change, type ChangeClass, countChanges } from "./change.js";

export interface Compared {
  old: { source: string; version: string };
  new: { source: string; version: string };
  changes: Change[];
}

const CLASSES: ChangeClass[] = ["breaking", "undecided", "compatible", "informational"];
const HEADINGS: Record<ChangeClass, string> = {
  breaking: "Breaking changes",
  undecided: "Changes the diff cannot decide (check whether they break clients)",
  compatible: "Compatible changes",
  informational: "Informational changes",
};
/** The heading of changes that concern no operation: info, servers, components no operation uses. */
export const DOCUMENT_GROUP = "the document";

export function summaryLine(compared: Compared): string {
  const counts = countChanges(compared.changes);
  const undecided = counts.undecided > 0 ? `, ${counts.undecided} undecided` : "";
  return `${counts.breaking} breaking${undecided}, ${counts.compatible} compatible, ${counts.informational} informational`;
}

/**
 * The changes by the operation they concern, operations in order and the document's last: a change
 * to a shared component is listed under each operation that uses it.
 */
export function byOperation(changes: Change[]): [string, Change[]][] {
  const groups = new Map<string, Change[]>();
  for (const change of changes) {
    for (const group of change.operations ?? [DOCUMENT_GROUP]) {
      const list = groups.get(group) ?? [];
      list.push(change);
      groups.set(group, list);
    }
  }
  const order = (a: string, b: string) =>
    a === DOCUMENT_GROUP ? 1 : b === DOCUMENT_GROUP ? -1 : a < b ? -1 : a > b ? 1 : 0;
  return [...groups].sort(([a], [b]) => order(a, b));
}

export function renderText(compared: Compared): string {
  const lines = [
    `${compared.old.source} (${compared.old.version}) → ${compared.new.source} (${compared.new.version}): ${summaryLine(compared)}`,
  ];
  for (const cls of CLASSES) {
    const changes = compared.changes.filter((change) => change.class === cls);
    if (changes.length === 0) continue;
    lines.push("", `${HEADINGS[cls]} (${changes.length})`);
    for (const [heading, group] of byOperation(changes)) {
      lines.push(`  ${heading}`);
      for (const change of group) {
        const where =
          change.in === "old" ? `${compared.old.source}#${change.pointer}` : change.pointer || "/";
        const follow =
          change.breaksImplementations && cls !== "breaking" ? " (implementations must follow)" : "";
        lines.push(`    ${where}: ${change.message}${follow}`);
      }
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
      const where = change.operations
        ? `${change.operations.map((op) => `**${escapeMarkdown(op)}**`).join(", ")}: `
        : "";
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
