// The zod and the helpers generated modules use (the runtime's), so a live parser is the one a generated module builds.
import { z } from "@pmcp-codegen/runtime";
import * as parsers from "@pmcp-codegen/runtime/parsers";
import type { KnownName, ParserTree, RuntimeHelper, ZodFactory, ZodMethod } from "../codegen/parser-tree.js";

type Parser = z.ZodType<unknown>;
type Callable = (...args: never[]) => unknown;

const FACTORIES: Record<ZodFactory, Callable> = {
  never: z.never,
  null: z.null,
  boolean: z.boolean,
  string: z.string,
  number: z.number,
  literal: z.literal,
  custom: z.custom,
  array: z.array,
  tuple: z.tuple,
  looseObject: z.looseObject,
  strictObject: z.strictObject,
  record: z.record,
  intersection: z.intersection,
  union: z.union,
};

const HELPERS: Record<RuntimeHelper, Callable> = {
  allOf: parsers.allOf,
  oneOf: parsers.oneOf,
  protoProperty: parsers.protoProperty,
  minCodePoints: parsers.minCodePoints,
  maxCodePoints: parsers.maxCodePoints,
  minItems: parsers.minItems,
  maxItems: parsers.maxItems,
  format: parsers.format,
  multipleOf: parsers.multipleOf,
  isOneOfValues: parsers.isOneOfValues,
  otherKeysMatch: parsers.otherKeysMatch,
  matches: parsers.matches,
  ownProperties: parsers.ownProperties,
  propertyCount: parsers.propertyCount,
  not: parsers.not,
  conditional: parsers.conditional,
  contains: parsers.contains,
  dependentRequired: parsers.dependentRequired,
  dependentSchema: parsers.dependentSchema,
  propertyNames: parsers.propertyNames,
  unevaluatedProperties: parsers.unevaluatedProperties,
  unevaluatedItems: parsers.unevaluatedItems,
};

const NAMES: Record<KnownName, unknown> = {
  JsonValueSchema: parsers.JsonValueSchema,
  uniqueItems: parsers.uniqueItems,
  "Number.isInteger": Number.isInteger,
};

/**
 * One server's result parsers built as live zod objects from the parser trees `pmcp generate`
 * prints: each tree node does what its printed code does, by the closed tables above, so code
 * mode accepts and rejects exactly what the generated client does, without evaluating any text.
 */
export class LiveParsers {
  readonly #definitions: ReadonlyMap<string, ParserTree>;
  readonly #built = new Map<string, Parser>();

  /** `definitions`: the module's named parsers, which trees reach by `ref`. */
  constructor(definitions: Iterable<readonly [name: string, tree: ParserTree]>) {
    this.#definitions = new Map(definitions);
  }

  build(tree: ParserTree): Parser {
    return this.#value(tree) as Parser;
  }

  #value(tree: ParserTree): unknown {
    const all = (trees: ParserTree[]) => trees.map((inner) => this.#value(inner));
    switch (tree.kind) {
      case "call": {
        const callee = tree.callee.of === "z" ? FACTORIES[tree.callee.name] : HELPERS[tree.callee.name];
        return (callee as (...args: unknown[]) => unknown)(...all(tree.args));
      }
      case "method": {
        const target = this.#value(tree.target) as Record<ZodMethod, (...args: unknown[]) => unknown>;
        return target[tree.name](...all(tree.args));
      }
      case "name":
        return NAMES[tree.name];
      case "ref":
        // Lazy, as a generated module's parser within a reference cycle is: a definition may refer to itself.
        return z.lazy(() => this.#definition(tree.name));
      case "value":
        return tree.value;
      case "data":
        // A copy, as the printed `JSON.parse` makes one.
        return JSON.parse(JSON.stringify(tree.value));
      case "regex":
        return parsers.pattern(tree.source);
      case "list":
        return all(tree.items);
      case "shape":
      case "fields":
        // fromEntries defines each key, so a "__proto__" key is a key, not the prototype.
        return Object.fromEntries(tree.entries.map(([key, inner]) => [key, this.#value(inner)]));
    }
  }

  #definition(name: string): Parser {
    let parser = this.#built.get(name);
    if (parser === undefined) {
      const tree = this.#definitions.get(name);
      if (tree === undefined) throw new Error(`no parser named ${name}`);
      parser = this.build(tree);
      this.#built.set(name, parser);
    }
    return parser;
  }
}
