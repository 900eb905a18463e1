// Security: an operation's requirement alternatives (its own `security`, else the document's),
// and the security schemes they name. An old alternative that no new one is satisfied by locks
// out the clients that use it: breaking.
import { type At, type Comparison, child, isObject, same, show } from "./comparison.js";
import { SECURITY_SCHEME_EXTENSIONS } from "./extensions/index.js";
import { compareRemainingKeys } from "./structural.js";

type Requirement = Record<string, string[]>;

/** No requirement at all (an empty or absent list) lets every caller in, as `{}` does. */
const orAnyone = (list: Requirement[]) => (list.length === 0 ? [{}] : list);

function requirementsOf(c: Comparison, op: At, side: "old" | "new"): { at: At; list: Requirement[] } {
  const own = child(op, "security");
  if (Array.isArray(own.value)) return { at: own, list: orAnyone(own.value as Requirement[]) };
  const document = side === "old" ? c.oldDocument : c.newDocument;
  const list = Array.isArray(document.security) ? (document.security as Requirement[]) : [];
  return { at: { value: document.security, pointer: "/security" }, list: orAnyone(list) };
}

/** A client that satisfies `held` satisfies `asked` when asked needs no scheme or scope held lacks. */
const satisfies = (held: Requirement, asked: Requirement) =>
  Object.entries(asked).every(
    ([scheme, scopes]) =>
      held[scheme] !== undefined && (scopes ?? []).every((s) => held[scheme]!.includes(s)),
  );

const describe = (r: Requirement) =>
  Object.keys(r).length === 0 ? "no credentials" : Object.keys(r).join(" + ");

export function compareSecurity(c: Comparison, oOp: At, nOp: At): void {
  const before = requirementsOf(c, oOp, "old");
  const after = requirementsOf(c, nOp, "new");
  if (same(before.list, after.list)) return;
  const reported = c.reports;
  for (const old of before.list) {
    if (!after.list.some((now) => satisfies(old, now))) {
      c.report(before.at, after.at, {
        kind: "security-requirement-removed",
        class: "breaking",
        message: `callers that send ${describe(old)} are no longer let in: every alternative now asks for more`,
      });
    }
  }
  for (const now of after.list) {
    if (!before.list.some((old) => satisfies(now, old))) {
      c.report(before.at, after.at, {
        kind: "security-requirement-added",
        class: "compatible",
        breaksImplementations: true,
        message: `callers may now authenticate with ${describe(now)}: implementations must accept it`,
      });
    }
  }
  if (c.reports === reported) {
    c.report(before.at, after.at, {
      kind: "security-rewritten",
      class: "informational",
      message: "security alternatives rewritten; they let in the same callers",
    });
  }
}

/** The security schemes themselves: how each credential is sent, and x-signing. */
export function compareSecuritySchemes(c: Comparison): void {
  const o: At = { value: c.oldDocument.components?.securitySchemes, pointer: "/components/securitySchemes" };
  const n: At = { value: c.newDocument.components?.securitySchemes, pointer: "/components/securitySchemes" };
  const names = new Set([
    ...Object.keys(isObject(o.value) ? o.value : {}),
    ...Object.keys(isObject(n.value) ? n.value : {}),
  ]);
  for (const name of names) {
    const was = c.deref(child(o, name), "old");
    const is = c.deref(child(n, name), "new");
    if (was.value === undefined) {
      c.report(was, is, {
        kind: "security-scheme-added",
        class: "compatible",
        message: `security scheme ${name} added`,
      });
      continue;
    }
    if (is.value === undefined) {
      c.report(was, is, {
        kind: "security-scheme-removed",
        class: "breaking",
        breaksImplementations: true,
        message: `security scheme ${name} removed`,
      });
      continue;
    }
    for (const key of ["type", "in", "name", "scheme", "bearerFormat", "flows", "openIdConnectUrl"]) {
      if (!same(child(was, key).value, child(is, key).value)) {
        c.report(child(was, key), child(is, key), {
          kind: "security-scheme-changed",
          class: "breaking",
          breaksImplementations: true,
          message: `security scheme ${name}: ${key} changed from ${show(child(was, key).value)} to ${show(child(is, key).value)}: credentials travel differently`,
        });
      }
    }
    for (const [key, rule] of SECURITY_SCHEME_EXTENSIONS) {
      if (!same(child(was, key).value, child(is, key).value))
        rule.compare(c, child(was, key), child(is, key), { old: was, new: is });
    }
    compareRemainingKeys(
      c,
      was,
      is,
      new Set([
        "type",
        "in",
        "name",
        "scheme",
        "bearerFormat",
        "flows",
        "openIdConnectUrl",
        ...SECURITY_SCHEME_EXTENSIONS.keys(),
      ]),
    );
  }
}
