// Operations: matched by method and path (path parameter names do not matter), then by
// operationId for one that moved; then their parameters, request body, responses, security and
// extensions, each by its rules.
import type { Direction } from "./change.js";
import { HTTP_METHODS } from "./check-document.js";
import { type At, type Comparison, child, isObject, same, show } from "./comparison.js";
import { OPERATION_EXTENSIONS } from "./extensions/index.js";
import { compareSchema } from "./schema-diff.js";
import { compareSecurity } from "./security-diff.js";
import { compareEncoding, compareRemainingKeys, compareServers, compareStructurally } from "./structural.js";
import { operationLabel } from "./usage.js";
import { compareCallbacks } from "./webhook-diff.js";

interface OperationAt {
  method: string;
  path: string;
  at: At;
  /** The path item, for its shared parameters. */
  item: At;
  id: string | undefined;
}

const templateOf = (path: string) => path.replace(/\{[^}]*\}/g, "{}");
const labelOf = (op: OperationAt) => operationLabel(op.method, op.path, op.id);

function operationsOf(c: Comparison, side: "old" | "new"): Map<string, OperationAt> {
  const document = side === "old" ? c.oldDocument : c.newDocument;
  const found = new Map<string, OperationAt>();
  const paths: At = { value: document.paths, pointer: "/paths" };
  for (const path of Object.keys(isObject(paths.value) ? paths.value : {})) {
    const item = c.deref(child(paths, path), side);
    for (const method of HTTP_METHODS) {
      const at = child(item, method);
      if (!isObject(at.value)) continue;
      const id = typeof at.value.operationId === "string" ? at.value.operationId : undefined;
      found.set(`${method} ${templateOf(path)}`, { method, path, at, item, id });
    }
  }
  return found;
}

export function compareOperations(c: Comparison): void {
  const before = operationsOf(c, "old");
  const after = operationsOf(c, "new");
  const unmatchedNew = new Map([...after].filter(([key]) => !before.has(key)));
  for (const [key, old] of before) {
    const now =
      after.get(key) ?? [...unmatchedNew.values()].find((op) => old.id !== undefined && op.id === old.id);
    if (!now) {
      c.within(labelOf(old), () =>
        c.report(
          old.at,
          { value: undefined, pointer: old.at.pointer },
          {
            kind: "operation-removed",
            class: "breaking",
            breaksImplementations: false,
            message: "operation removed: clients that call it get 404",
          },
        ),
      );
      continue;
    }
    if (!after.has(key)) {
      unmatchedNew.delete(`${now.method} ${templateOf(now.path)}`);
      c.within(labelOf(now), () =>
        c.report(old.at, now.at, {
          kind: "operation-moved",
          class: "breaking",
          breaksImplementations: true,
          message: `operation ${old.id} moved from ${old.method.toUpperCase()} ${old.path} to ${now.method.toUpperCase()} ${now.path}: clients call the old address`,
        }),
      );
    }
    c.within(labelOf(now), () => compareOperation(c, old, now));
  }
  for (const op of unmatchedNew.values()) {
    c.within(labelOf(op), () =>
      c.report({ value: undefined, pointer: op.at.pointer }, op.at, {
        kind: "operation-added",
        class: "compatible",
        breaksImplementations: true,
        message: "operation added",
      }),
    );
  }
}

const OPERATION_KEYS = new Set([
  "operationId",
  "parameters",
  "requestBody",
  "responses",
  "security",
  "deprecated",
  "servers",
  "callbacks",
]);

function compareOperation(c: Comparison, o: OperationAt, n: OperationAt): void {
  const oid = child(o.at, "operationId");
  const nid = child(n.at, "operationId");
  if (!same(oid.value, nid.value)) {
    c.report(oid, nid, {
      kind: "operation-id-changed",
      class: "breaking",
      message: `operationId changed from ${show(oid.value)} to ${show(nid.value)}: generated clients name their methods by it`,
    });
  }
  const deprecated = (at: At) => (at.value as Record<string, unknown>).deprecated === true;
  if (deprecated(o.at) !== deprecated(n.at)) {
    c.report(child(o.at, "deprecated"), child(n.at, "deprecated"), {
      kind: "operation-deprecated",
      class: "informational",
      message: deprecated(n.at) ? "operation marked deprecated" : "operation no longer deprecated",
    });
  }
  compareParameters(c, o, n);
  compareRequestBody(c, child(o.at, "requestBody"), child(n.at, "requestBody"));
  compareResponses(c, child(o.at, "responses"), child(n.at, "responses"));
  compareSecurity(c, o.at, n.at);
  compareCallbacks(c, o.at, n.at);
  compareServers(c, child(o.item, "servers"), child(n.item, "servers"));
  compareServers(c, child(o.at, "servers"), child(n.at, "servers"));
  for (const [key, rule] of OPERATION_EXTENSIONS) {
    const before = child(o.at, key);
    const after = child(n.at, key);
    if (!same(before.value, after.value)) rule.compare(c, before, after, { old: o.at, new: n.at });
  }
  compareRemainingKeys(c, o.at, n.at, new Set([...OPERATION_KEYS, ...OPERATION_EXTENSIONS.keys()]));
}

// ---- parameters -----------------------------------------------------------------------------------

/** The operation's parameters with the path item's, by `in` and name (header names ignore case). */
function parametersOf(c: Comparison, op: OperationAt, side: "old" | "new"): Map<string, { raw: At; at: At }> {
  const found = new Map<string, { raw: At; at: At }>();
  for (const list of [child(op.item, "parameters"), child(op.at, "parameters")]) {
    if (!Array.isArray(list.value)) continue;
    list.value.forEach((_, index) => {
      const raw = child(list, index);
      const parameter = c.deref(raw, side);
      if (!isObject(parameter.value)) return;
      // A document without a parameter's name (or with one that is not text) is compared as it is.
      const { name, in: place } = parameter.value as { name: unknown; in: unknown };
      const key = place === "header" && typeof name === "string" ? name.toLowerCase() : String(name);
      found.set(`${String(place)}:${key}`, { raw, at: parameter });
    });
  }
  return found;
}

function compareParameters(c: Comparison, o: OperationAt, n: OperationAt): void {
  const before = parametersOf(c, o, "old");
  const after = parametersOf(c, n, "new");
  const required = (at: At) => (at.value as Record<string, unknown>).required === true;
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    // Added and removed parameters are reported at the operation's entry, where a reader finds them.
    const was = before.get(key)?.raw ?? { value: undefined, pointer: `${o.at.pointer}/parameters` };
    const is = after.get(key)?.raw ?? { value: undefined, pointer: `${n.at.pointer}/parameters` };
    const [place, name] = key.split(/:(.*)/s) as [string, string];
    const label = `${place} parameter "${name}"`;
    if (was.value === undefined) {
      const mandatory = required(after.get(key)!.at);
      c.report(was, is, {
        kind: mandatory ? "parameter-added-required" : "parameter-added-optional",
        class: mandatory ? "breaking" : "compatible",
        breaksImplementations: true,
        message: mandatory
          ? `required ${label} added: clients that do not send it are refused`
          : `optional ${label} added: implementations must accept it`,
      });
    } else if (is.value === undefined) {
      c.report(was, is, {
        kind: required(before.get(key)!.at) ? "parameter-removed" : "optional-parameter-removed",
        class: "breaking",
        message: `${required(before.get(key)!.at) ? "required" : "optional"} ${label} removed: clients that send it are refused (unknown parameters are rejected)`,
      });
    } else {
      const [oldParameter, newParameter] = [before.get(key)!.at, after.get(key)!.at];
      c.once(oldParameter, newParameter, "parameter", () =>
        compareParameter(c, oldParameter, newParameter, label),
      );
    }
  }
}

const PARAMETER_KEYS = new Set([
  "name",
  "in",
  "required",
  "schema",
  "content",
  "deprecated",
  "style",
  "explode",
  "allowReserved",
  "allowEmptyValue",
]);

function compareParameter(c: Comparison, o: At, n: At, label: string): void {
  const value = (at: At, key: string) => (at.value as Record<string, unknown>)[key];
  if ((value(o, "required") === true) !== (value(n, "required") === true)) {
    const nowRequired = value(n, "required") === true;
    c.report(child(o, "required"), child(n, "required"), {
      kind: nowRequired ? "parameter-became-required" : "parameter-became-optional",
      class: nowRequired ? "breaking" : "compatible",
      breaksImplementations: !nowRequired,
      message: nowRequired
        ? `${label} is now required: clients that leave it out are refused`
        : `${label} is now optional: implementations must handle it missing`,
    });
  }
  for (const key of ["style", "explode", "allowReserved", "allowEmptyValue"]) {
    if (!same(value(o, key), value(n, key))) {
      c.report(child(o, key), child(n, key), {
        kind: "parameter-serialization-changed",
        class: "breaking",
        breaksImplementations: true,
        message: `${label}: ${key} changed from ${show(value(o, key))} to ${show(value(n, key))}, so it is written differently on the wire`,
      });
    }
  }
  const encoding = (at: At) => (value(at, "content") !== undefined ? "content" : "schema");
  if (encoding(o) !== encoding(n)) {
    c.report(o, n, {
      kind: "parameter-encoding-changed",
      class: "breaking",
      breaksImplementations: true,
      message: `${label} is now described by "${encoding(n)}" instead of "${encoding(o)}": its value is encoded differently`,
    });
  } else if (encoding(n) === "content") {
    compareContent(c, child(o, "content"), child(n, "content"), "request", label);
  } else {
    compareSchema(c, child(o, "schema"), child(n, "schema"), "request");
  }
  if (value(o, "deprecated") !== value(n, "deprecated")) {
    c.report(child(o, "deprecated"), child(n, "deprecated"), {
      kind: "parameter-deprecated",
      class: "informational",
      message: `${label} ${value(n, "deprecated") === true ? "marked deprecated" : "no longer deprecated"}`,
    });
  }
  compareRemainingKeys(c, o, n, PARAMETER_KEYS);
}

// ---- bodies and responses ----------------------------------------------------------------------------

/** Media types of a body, a response or a content-encoded parameter. */
function compareContent(c: Comparison, o: At, n: At, direction: Direction, label: string): void {
  const types = new Set([
    ...Object.keys(isObject(o.value) ? o.value : {}),
    ...Object.keys(isObject(n.value) ? n.value : {}),
  ]);
  for (const type of types) {
    const was = child(o, type);
    const is = child(n, type);
    if (was.value === undefined) {
      c.report(was, is, {
        kind: `${direction}-media-type-added`,
        class: "compatible",
        breaksImplementations: direction === "request",
        message:
          direction === "request"
            ? `${label} may now be sent as ${type}: implementations must read it`
            : `${label} may now be ${type}, served to clients that accept it`,
      });
    } else if (is.value === undefined) {
      c.report(was, is, {
        kind: `${direction}-media-type-removed`,
        class: "breaking",
        breaksImplementations: direction === "response",
        message:
          direction === "request"
            ? `${label} may no longer be sent as ${type}: clients that do are refused`
            : `${label} is no longer ${type}: clients that read it get something else`,
      });
    } else {
      compareSchema(c, child(was, "schema"), child(is, "schema"), direction);
      compareEncoding(c, was, is);
      compareRemainingKeys(c, was, is, new Set(["schema", "encoding"]));
    }
  }
}

function compareRequestBody(c: Comparison, oRaw: At, nRaw: At): void {
  const o = c.deref(oRaw, "old");
  const n = c.deref(nRaw, "new");
  if (o.value === undefined && n.value === undefined) return;
  const required = (at: At) => isObject(at.value) && at.value.required === true;
  if (o.value === undefined) {
    c.report(o, n, {
      kind: required(n) ? "request-body-added-required" : "request-body-added-optional",
      class: required(n) ? "breaking" : "compatible",
      breaksImplementations: true,
      message: required(n)
        ? "a required request body added: clients that send none are refused"
        : "an optional request body added",
    });
    return;
  }
  if (n.value === undefined) {
    c.report(o, n, {
      kind: "request-body-removed",
      class: "breaking",
      message: "request body removed: clients that send one are refused",
    });
    return;
  }
  if (required(o) !== required(n)) {
    c.report(child(o, "required"), child(n, "required"), {
      kind: required(n) ? "request-body-became-required" : "request-body-became-optional",
      class: required(n) ? "breaking" : "compatible",
      breaksImplementations: !required(n),
      message: required(n)
        ? "request body is now required"
        : "request body is now optional: implementations must handle none",
    });
  }
  compareContent(c, child(o, "content"), child(n, "content"), "request", "the request body");
  compareRemainingKeys(c, o, n, new Set(["required", "content"]));
}

const isSuccess = (status: string) => /^2(\d\d|XX)$/i.test(status);

function compareResponses(c: Comparison, o: At, n: At): void {
  const codes = new Set([
    ...Object.keys(isObject(o.value) ? o.value : {}),
    ...Object.keys(isObject(n.value) ? n.value : {}),
  ]);
  for (const status of codes) {
    const was = c.deref(child(o, status), "old");
    const is = c.deref(child(n, status), "new");
    const at = { old: child(o, status), new: child(n, status) };
    if (was.value === undefined) {
      c.report(at.old, at.new, {
        kind: "response-status-added",
        class: isSuccess(status) ? "breaking" : "compatible",
        breaksImplementations: false,
        message: isSuccess(status)
          ? `success response ${status} added: clients built for the others do not expect it`
          : `response ${status} added: clients handle it as the error they already handle`,
      });
    } else if (is.value === undefined) {
      c.report(at.old, at.new, {
        kind: "response-status-removed",
        class: isSuccess(status) ? "breaking" : "compatible",
        breaksImplementations: true,
        message: isSuccess(status)
          ? `success response ${status} removed: clients that expect it get another`
          : `response ${status} removed: implementations that answer it no longer conform`,
      });
    } else {
      c.once(was, is, "response-object", () => compareResponse(c, was, is, `response ${status}`));
    }
  }
}

function compareResponse(c: Comparison, o: At, n: At, label: string): void {
  compareContent(c, child(o, "content"), child(n, "content"), "response", `the body of ${label}`);
  const headers = (at: At) => child(at, "headers");
  const names = new Set([
    ...Object.keys(isObject(headers(o).value) ? (headers(o).value as object) : {}),
    ...Object.keys(isObject(headers(n).value) ? (headers(n).value as object) : {}),
  ]);
  for (const name of names) {
    const was = c.deref(child(headers(o), name), "old");
    const is = c.deref(child(headers(n), name), "new");
    if (was.value === undefined) {
      c.report(was, is, {
        kind: "response-header-added",
        class: "compatible",
        message: `${label} header ${name} added`,
      });
    } else if (is.value === undefined) {
      c.report(was, is, {
        kind: "response-header-removed",
        class: "breaking",
        message: `${label} header ${name} removed: clients that read it find nothing`,
      });
    } else {
      const required = (at: At) => isObject(at.value) && at.value.required === true;
      if (required(was) && !required(is)) {
        c.report(was, is, {
          kind: "response-header-became-optional",
          class: "breaking",
          message: `${label} header ${name} is no longer always sent`,
        });
      } else if (!required(was) && required(is)) {
        c.report(was, is, {
          kind: "response-header-became-required",
          class: "compatible",
          breaksImplementations: true,
          message: `${label} header ${name} is now always sent: implementations must send it`,
        });
      }
      compareSchema(c, child(was, "schema"), child(is, "schema"), "response");
      compareRemainingKeys(c, was, is, new Set(["required", "schema"]));
    }
  }
  compareRemainingKeys(c, o, n, new Set(["content", "headers"]));
}

export { compareStructurally };
