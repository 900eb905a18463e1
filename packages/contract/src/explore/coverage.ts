/**
 * What the exploration exercised, as data: per operation, the parameters it sent, the values of
 * enum parameters, the response variants it asked for, the statuses and error codes it got, and
 * the order statuses and types its answers showed. The coverage report reads it from the result.
 */
import { bodyObject, errorCode } from "../kit/answers.js";
import type { RoundTrip } from "../session/round-trip.js";

export interface OperationCoverage {
  requests: number;
  parameters: string[];
  /** Values sent, by enum parameter. */
  enumValues: Record<string, string[]>;
  /** Variants asked for by the parameter x-response-variant-by names ("(default)" when absent). */
  responseVariants: string[];
  statusCodes: number[];
  errorCodes: number[];
  /** Order statuses seen in the answers (status fields of objects and list items). */
  orderStatuses: string[];
}

function add<T>(list: T[], value: T): void {
  if (!list.includes(value)) list.push(value);
}

function emptyCoverage(): OperationCoverage {
  return {
    requests: 0,
    parameters: [],
    enumValues: {},
    responseVariants: [],
    statusCodes: [],
    errorCodes: [],
    orderStatuses: [],
  };
}

export class ExplorationCoverage {
  readonly operations: Record<string, OperationCoverage> = {};

  see(exchange: RoundTrip): void {
    const op = exchange.op;
    const cell = this.operations[op.operationId] ?? emptyCoverage();
    this.operations[op.operationId] = cell;
    cell.requests += 1;
    const sent = new Map(exchange.plan.params);
    for (const [name, value] of sent) {
      add(cell.parameters, name);
      const param = op.parameters.find((p) => p.name === name);
      if (param?.resolvedSchema.enum) {
        const values = cell.enumValues[name] ?? [];
        cell.enumValues[name] = values;
        add(values, value);
      }
    }
    const variants = op.responseVariants;
    if (variants?.by === "value") add(cell.responseVariants, sent.get(variants.parameter) ?? "(default)");
    const status = exchange.response?.status;
    if (status !== undefined) add(cell.statusCodes, status);
    const code = errorCode(exchange);
    if (code !== undefined) add(cell.errorCodes, code);
    const json = exchange.response?.json;
    const items = Array.isArray(json) ? json : bodyObject(exchange) ? [json] : [];
    for (const item of items) {
      const s =
        typeof item === "object" && item !== null ? (item as Record<string, unknown>).status : undefined;
      if (typeof s === "string") add(cell.orderStatuses, s);
    }
  }

  /** A copy with every list sorted, for the result. */
  summary(): Record<string, OperationCoverage> {
    const out: Record<string, OperationCoverage> = {};
    for (const [id, c] of Object.entries(this.operations)) {
      out[id] = {
        requests: c.requests,
        parameters: [...c.parameters].sort(),
        enumValues: Object.fromEntries(Object.entries(c.enumValues).map(([k, v]) => [k, [...v].sort()])),
        responseVariants: [...c.responseVariants].sort(),
        statusCodes: [...c.statusCodes].sort((a, b) => a - b),
        errorCodes: [...c.errorCodes].sort((a, b) => a - b),
        orderStatuses: [...c.orderStatuses].sort(),
      };
    }
    return out;
  }
}
