// x-auth-class in the docs: the class in each operation's facts, a badge beside its title, and the
// section that lists the classes with their credentials and members. Only where the spec writes
// x-auth-class: the model derives a class for every operation, but a spec that does not speak of
// classes is shown in its own words (its security requirements, in the credentials line).
import type { Operation, SpecModel } from "@marketapi/spec/model";
import { code } from "../markdown.js";
import { credentialsMarkdown } from "./credentials.js";

export const AUTH_CLASSES_SECTION_TITLE = "Authentication classes";

/** Whether the spec itself gives the operation its class (x-auth-class), rather than the model deriving one. */
const declared = (operation: Operation) => operation.authClassFrom === "x-auth-class";

/** The line of the operation's facts that names its class, where the spec names one. */
export function authClassLine(operation: Operation): string | undefined {
  return declared(operation) ? `- **Authentication class:** ${code(operation.authClass)}` : undefined;
}

/** A badge next to the title (and in the sidebar) for the classes that need credentials. */
export function authClassBadges(operation: Operation, badges: unknown): unknown[] | undefined {
  if (operation.authClass === "none" || !declared(operation)) return undefined;
  return [
    ...(Array.isArray(badges) ? badges : []),
    { name: `auth: ${operation.authClass}`, position: "after" },
  ];
}

/** The auth classes found on the operations, with credentials and members. */
export function authClassesMarkdown(model: SpecModel): string | undefined {
  const classes = new Map<string, Operation[]>();
  for (const operation of model.operations.filter(declared)) {
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
    model.operations.every(declared)
      ? `Every operation declares its authentication class in ${code("x-auth-class")}; the credentials follow from its security requirement.`
      : `The operations below declare their authentication class in ${code("x-auth-class")}; the credentials follow from their security requirements.`,
    items.join("\n"),
  ].join("\n\n");
}
