// x-auth-class in the docs: the class in each operation's facts, a badge beside its title, and the
// section that lists the classes with their credentials and members.
import type { Operation, SpecModel } from "@marketapi/spec/model";
import { code } from "../markdown.js";
import { credentialsMarkdown } from "./credentials.js";

export const AUTH_CLASSES_SECTION_TITLE = "Authentication classes";

/** The line of the operation's facts that names its class. */
export function authClassLine(operation: Operation): string {
  return `- **Authentication class:** ${code(operation.authClass)}`;
}

/** A badge next to the title (and in the sidebar) for the classes that need credentials. */
export function authClassBadges(operation: Operation, badges: unknown): unknown[] | undefined {
  if (operation.authClass === "none") return undefined;
  return [
    ...(Array.isArray(badges) ? badges : []),
    { name: `auth: ${operation.authClass}`, position: "after" },
  ];
}

/** The auth classes found on the operations, with credentials and members. */
export function authClassesMarkdown(model: SpecModel): string | undefined {
  const classes = new Map<string, Operation[]>();
  for (const operation of model.operations) {
    classes.set(operation.authClass, [...(classes.get(operation.authClass) ?? []), operation]);
  }
  if (classes.size === 0) return undefined;
  const items = [...classes].map(([authClass, members]) => {
    const credentials = [...new Set(members.map((m) => credentialsMarkdown(m, model)))].join(
      "; or, for some, ",
    );
    const ids = members.map((m) => code(m.operationId));
    return `- ${code(authClass)}: ${credentials}. Operations: ${ids.join(", ")}.`;
  });
  return [
    `## ${AUTH_CLASSES_SECTION_TITLE}`,
    `Every operation declares its authentication class in ${code("x-auth-class")}; the credentials follow from its security requirement.`,
    items.join("\n"),
  ].join("\n\n");
}
