// A string that a schema's `pattern` (an ECMA-262 regular expression, as JSON Schema 2020-12 reads
// it) matches, within minLength and maxLength: what a sample sends where the spec gives no example
// (Twilio's `AccountSid`, `^AC[0-9a-fA-F]{32}$`). The pattern is parsed into a small tree (literals,
// escapes, classes, groups, alternatives, quantifiers; lookarounds and anchors match nothing), a
// string is written from it with each quantifier repeated as few times as it allows, then more
// until the length fits, and every candidate is checked by the RegExp itself before it is used.

type Node =
  | { kind: "text"; text: string }
  | { kind: "class"; negated: boolean; ranges: [number, number][] }
  | { kind: "group"; alternatives: Node[][] }
  | { kind: "repeat"; node: Node; min: number; max: number };

/** Characters a sample prefers, in order, when a class or wildcard lets it choose. */
const PREFERRED = [..."a1AbcxyzB0-_."].map((c) => c.codePointAt(0)!);

class Parser {
  private at = 0;
  constructor(private readonly source: string) {}

  parse(): Node {
    const node = this.alternatives();
    if (this.at < this.source.length) throw new Error(`unexpected ${this.source[this.at]}`);
    return node;
  }

  private alternatives(): Node {
    const alternatives: Node[][] = [this.sequence()];
    while (this.source[this.at] === "|") {
      this.at++;
      alternatives.push(this.sequence());
    }
    return { kind: "group", alternatives };
  }

  private sequence(): Node[] {
    const nodes: Node[] = [];
    while (this.at < this.source.length && this.source[this.at] !== "|" && this.source[this.at] !== ")") {
      const atom = this.atom();
      nodes.push(this.quantified(atom));
    }
    return nodes;
  }

  private quantified(atom: Node): Node {
    const c = this.source[this.at];
    let range: [number, number] | undefined;
    if (c === "*") range = [0, Number.POSITIVE_INFINITY];
    else if (c === "+") range = [1, Number.POSITIVE_INFINITY];
    else if (c === "?") range = [0, 1];
    else if (c === "{") {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (match) {
        const min = Number(match[1]);
        const max =
          match[2] === undefined ? min : match[3] === "" ? Number.POSITIVE_INFINITY : Number(match[3]);
        range = [min, max];
        this.at += match[0].length - 1;
      }
    }
    if (range === undefined) return atom;
    this.at++;
    if (this.source[this.at] === "?") this.at++; // lazy: the same strings
    return { kind: "repeat", node: atom, min: range[0], max: range[1] };
  }

  private atom(): Node {
    const c = this.source[this.at++]!;
    if (c === "^" || c === "$") return { kind: "text", text: "" };
    if (c === ".") return { kind: "class", negated: true, ranges: [[10, 10]] };
    if (c === "[") return this.characterClass();
    if (c === "(") return this.group();
    if (c === "\\") return this.escape(false);
    return { kind: "text", text: c };
  }

  private group(): Node {
    let lookaround = false;
    if (this.source[this.at] === "?") {
      const head = /^\?(:|=|!|<=|<!|<[A-Za-z_$][\w$]*>)/.exec(this.source.slice(this.at));
      if (!head) throw new Error("unknown group");
      lookaround = head[1] !== ":" && !head[1]!.startsWith("<") ? true : /^<[=!]$/.test(head[1]!);
      this.at += head[0].length;
    }
    const inner = this.alternatives();
    if (this.source[this.at] !== ")") throw new Error("unclosed group");
    this.at++;
    return lookaround ? { kind: "text", text: "" } : inner;
  }

  private characterClass(): Node {
    const negated = this.source[this.at] === "^";
    if (negated) this.at++;
    const ranges: [number, number][] = [];
    let first = true;
    while (this.at < this.source.length && (this.source[this.at] !== "]" || first)) {
      first = false;
      const low = this.classAtom();
      if (this.source[this.at] === "-" && this.source[this.at + 1] !== "]" && low.length === 1) {
        this.at++;
        const high = this.classAtom();
        if (high.length === 1) {
          ranges.push([low[0]![0], high[0]![1]]);
          continue;
        }
        ranges.push(...low, [45, 45], ...high);
        continue;
      }
      ranges.push(...low);
    }
    if (this.source[this.at] !== "]") throw new Error("unclosed class");
    this.at++;
    return { kind: "class", negated, ranges };
  }

  /** One member of a class: a character (one range of itself) or an escape's set of ranges. */
  private classAtom(): [number, number][] {
    const c = this.source[this.at++]!;
    if (c !== "\\") {
      const code = c.codePointAt(0)!;
      return [[code, code]];
    }
    const escaped = this.escape(true);
    if (escaped.kind === "text") {
      const code = escaped.text === "" ? 8 : escaped.text.codePointAt(0)!; // [\b] is backspace
      return [[code, code]];
    }
    if (escaped.kind === "class" && !escaped.negated) return escaped.ranges;
    // A negated escape inside a class (\D, \W, \S): approximated by what the sample prefers.
    return escaped.kind === "class" ? complement(escaped.ranges) : [];
  }

  private escape(inClass: boolean): Node {
    const c = this.source[this.at++]!;
    const set = (negated: boolean, ranges: [number, number][]): Node => ({ kind: "class", negated, ranges });
    const DIGIT: [number, number][] = [[48, 57]];
    const WORD: [number, number][] = [
      [48, 57],
      [65, 90],
      [95, 95],
      [97, 122],
    ];
    const SPACE: [number, number][] = [
      [9, 13],
      [32, 32],
    ];
    switch (c) {
      case "d":
        return set(false, DIGIT);
      case "D":
        return set(true, DIGIT);
      case "w":
        return set(false, WORD);
      case "W":
        return set(true, WORD);
      case "s":
        return set(false, SPACE);
      case "S":
        return set(true, SPACE);
      case "b":
      case "B":
        return { kind: "text", text: "" };
      case "n":
        return { kind: "text", text: "\n" };
      case "t":
        return { kind: "text", text: "\t" };
      case "r":
        return { kind: "text", text: "\r" };
      case "f":
        return { kind: "text", text: "\f" };
      case "v":
        return { kind: "text", text: "\v" };
      case "0":
        return { kind: "text", text: "\0" };
      case "x":
      case "u": {
        const hex = /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{4}/.exec(this.source.slice(this.at));
        const short = c === "x" ? /^[0-9a-fA-F]{2}/.exec(this.source.slice(this.at)) : null;
        const found = short ?? hex;
        if (!found) return { kind: "text", text: c };
        this.at += found[0].length;
        return { kind: "text", text: String.fromCodePoint(Number.parseInt(found[1] ?? found[0], 16)) };
      }
      case "p":
      case "P": {
        const property = /^\{[^}]*\}/.exec(this.source.slice(this.at));
        if (property) this.at += property[0].length;
        // A Unicode property: letters are what such patterns ask for most; the RegExp checks it.
        return set(c === "P", [
          [65, 90],
          [97, 122],
        ]);
      }
      default:
        if (!inClass && /[1-9]/.test(c)) throw new Error("back-reference");
        return { kind: "text", text: c };
    }
  }
}

function complement(ranges: [number, number][]): [number, number][] {
  const choice = PREFERRED.find((code) => !ranges.some(([low, high]) => code >= low && code <= high));
  return choice === undefined ? [] : [[choice, choice]];
}

function pick(node: Extract<Node, { kind: "class" }>): string | undefined {
  const inside = (code: number) => node.ranges.some(([low, high]) => code >= low && code <= high);
  const allowed = (code: number) => inside(code) !== node.negated;
  const preferred = PREFERRED.find(allowed);
  if (preferred !== undefined) return String.fromCodePoint(preferred);
  if (!node.negated) return node.ranges[0] ? String.fromCodePoint(node.ranges[0][0]) : undefined;
  for (let code = 33; code < 0x3000; code++) if (allowed(code)) return String.fromCodePoint(code);
  return undefined;
}

/** The string of `node`, each quantifier repeated `extra` more times than its minimum (within its maximum). */
function write(node: Node, extra: number): string | undefined {
  switch (node.kind) {
    case "text":
      return node.text;
    case "class":
      return pick(node);
    case "group": {
      for (const alternative of node.alternatives) {
        const parts = alternative.map((part) => write(part, extra));
        if (parts.every((part) => part !== undefined)) return parts.join("");
      }
      return undefined;
    }
    case "repeat": {
      const count = Math.min(node.max, node.min + extra);
      const one = write(node.node, extra);
      if (one === undefined) return count === 0 ? "" : undefined;
      return one.repeat(count);
    }
  }
}

const MAX_LENGTH = 256;

/**
 * A string `pattern` matches, `minLength` to `maxLength` characters long (code points, as JSON
 * Schema counts), or undefined when none is found (a pattern this reader does not know, or bounds
 * no written string meets).
 */
export function stringMatching(
  pattern: string,
  minLength = 0,
  maxLength = Number.POSITIVE_INFINITY,
): string | undefined {
  let regexp: RegExp;
  let tree: Node;
  try {
    regexp = new RegExp(pattern, "u");
    tree = new Parser(pattern).parse();
  } catch {
    return undefined;
  }
  const fits = (text: string) => {
    const length = [...text].length;
    return length >= minLength && length <= maxLength && regexp.test(text);
  };
  for (let extra = 0; extra <= Math.min(MAX_LENGTH, Math.max(minLength, 1)); extra++) {
    const text = write(tree, extra);
    if (text === undefined || [...text].length > Math.min(maxLength, MAX_LENGTH)) break;
    if (fits(text)) return text;
    // A pattern matched anywhere in the string (no ^ or $) also takes the match padded to length.
    const padded = text.padEnd(minLength, "a");
    if (padded !== text && fits(padded)) return padded;
  }
  return undefined;
}
