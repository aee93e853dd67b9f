import { fieldConsistencyText, lowConsistencyFields } from "../bundle/field-consistency.js";
import type { Quality } from "../bundle/quality.js";
import { requiresTask, TASK_NOTE } from "../bundle/task-support.js";
import { toolTagsOf, toolTagsText } from "../bundle/tool-tags.js";
import type { BundleServer, Tool } from "../bundle/types.js";
import { count } from "../count.js";
import type { IRNode, NamedDefinition } from "../ir/ir.js";
import { camelCase } from "../ir/naming.js";
import { docComment, literal } from "./code.js";
import { emitParser } from "./emit-parser.js";
import { emitType } from "./emit-type.js";
import { PARSERS, type ParserTree, usesParsers } from "./parser-tree.js";
import {
  type GenerateWarning,
  type LanguageNames,
  planServer,
  type ResultSchema,
  typeDigests,
  WINDOWS_RESERVED_FILES,
} from "./server-plan.js";
import { type Emitted, noUses } from "./uses.js";

/** Everything a server module template needs, already escaped for its position. */
export interface ServerModulePlan {
  serverId: string;
  serverIdLiteral: string;
  className: string;
  classDoc: string;
  usesZod: boolean;
  /** Some parser calls the runtime's parsers (`@pmcp-codegen/runtime/parsers`). */
  usesParsers: boolean;
  /** In dependency order: each parser is declared after those it uses, except within a reference cycle. */
  definitions: DefinitionPlan[];
  tools: ToolPlan[];
  warnings: GenerateWarning[];
  /** Per tool, a digest of what its types are made from, so `generate --check` can name the tools whose types changed. */
  typeDigests: [tool: string, digest: string][];
}

export interface DefinitionPlan {
  name: string;
  parser: string;
  doc: string;
  type: string;
  /** Definitions the type refers to directly. */
  refs: string[];
  parserCode: string;
  /** The same parser as data, for code mode to build. */
  parserTree: ParserTree;
  /** The parser refers to itself or to a definition declared after it, so it is built on first use. */
  lazy: boolean;
}

export interface ToolPlan {
  toolLiteral: string;
  methodName: string;
  methodDoc: string;
  argsType: string;
  argsTypeCode: string;
  /** Definitions the arguments type refers to directly. */
  argsRefs: string[];
  argsDoc: string;
  argsOptional: boolean;
  resultType: string;
  resultTypeCode: string;
  /** Definitions the result type refers to directly. */
  resultRefs: string[];
  resultDoc: string;
  /**
   * What the method's promise resolves to: the result type for a declared schema, the whole result
   * with the value in `.value` for an inferred one (`rt.ParsedResult<…>`: its `rt.ToolResult` surface
   * stays whatever is learned), `rt.ToolResult` without a schema.
   */
  returnType: string;
  /**
   * The result's parser, as source and as data (code mode builds it); absent for a tool without a
   * result schema, whose method returns the result as it came (`rt.ToolResult`).
   */
  parser?: { name: string; code: string; tree: ParserTree };
  retryable: boolean;
  /** The result schema was inferred from observations: a mismatch is reported, not thrown, and the method returns `returnType`. */
  lenient: boolean;
  /** The declared output schema's root is not an object: 2025-era answers wrap it as `{ result }`. */
  nonObject: boolean;
  /** The tool requires task augmentation: the call runs it as a task. */
  task: boolean;
  /** The protocol version the bundle recorded for the server, as a literal; absent when none was recorded. */
  protocolLiteral?: string;
}

export interface PlanOptions {
  strictObjects: boolean;
  /** The lowest quality of inferred schema used for a tool that declares none. */
  minQuality: Quality;
}

/** The result type of a tool without a result schema: the result as it came, text, images, links or JSON. */
const TOOL_RESULT = "rt.ToolResult";

/** Names the generated module itself uses at top level, and the global generics its types use (a type named `Array` would shadow them). */
const MODULE_RESERVED = ["z", "rt", PARSERS, "Array", "Promise"];
/**
 * `then` would make every client instance a thenable; `constructor` is the class's own; a method
 * named like one of Object.prototype's (`toString`, `valueOf`, `hasOwnProperty`) would shadow it.
 */
const MEMBER_RESERVED = ["then", ...Object.getOwnPropertyNames(Object.prototype)];

/** TypeScript's names: a method in camelCase, a module that must not shadow what its code names. */
const TYPESCRIPT_NAMES: LanguageNames = {
  reserved: MODULE_RESERVED,
  reservedMethods: MEMBER_RESERVED,
  methodName: (tool) => camelCase(tool, "tool"),
  // TypeScript gives up on a type expression nested about 15 objects deep (TS2589, "excessively deep")
  // when it checks a parser against its type; a named type is checked once, by name, wherever it is used.
  nameEvery: 8,
};

/**
 * One server's module for its template: the server's plan (server-plan.ts) with every type and
 * parser emitted as TypeScript, every doc as a comment and every string as a literal.
 */
export function planServerModule(server: BundleServer, options: PlanOptions): ServerModulePlan {
  const plan = planServer(server, TYPESCRIPT_NAMES, options.minQuality);
  let toolsUseZod = false;
  const tools = plan.tools.map((planned): ToolPlan => {
    const { tool, output, resultNode } = planned;
    const resultType = resultNode === undefined ? { code: TOOL_RESULT, uses: { refs: new Set<string>() } } : emitType(resultNode);
    const parser = resultNode === undefined ? undefined : emitParser(resultNode, options);
    toolsUseZod ||= parser !== undefined;
    const annotations = tool.annotations ?? {};
    const args = argsType(planned.input);
    return {
      toolLiteral: literal(tool.name),
      methodName: planned.method,
      methodDoc: docComment(methodDocLines(tool, output), "  "),
      argsType: planned.args,
      argsTypeCode: args.code,
      argsRefs: [...args.uses.refs],
      argsDoc: docComment([`Arguments of the \`${tool.name}\` tool.`]),
      argsOptional: !hasRequired(planned.input, plan.definitions),
      resultType: planned.result,
      resultTypeCode: resultType.code,
      resultRefs: [...resultType.uses.refs],
      resultDoc: docComment(resultDocLines(tool, output)),
      returnType: planned.learned ? `rt.ParsedResult<${planned.result}>` : planned.result,
      ...(parser === undefined ? {} : { parser: { name: `${planned.result}Schema`, code: parser.code, tree: parser.parser } }),
      retryable: annotations.readOnlyHint === true || annotations.idempotentHint === true,
      lenient: planned.learned,
      nonObject: planned.nonObject,
      task: requiresTask(tool),
      ...(server.protocolVersion === undefined ? {} : { protocolLiteral: literal(server.protocolVersion) }),
    };
  });

  const definitions = declarationOrder(
    plan.definitions.map((definition) => {
      const type = emitType(definition.node);
      const parser = emitParser(definition.node, options);
      return {
        name: definition.name,
        parser: `${definition.name}Schema`,
        doc: docComment(definition.description ? [definition.description] : []),
        type: type.code,
        refs: [...type.uses.refs],
        parserCode: parser.code,
        parserTree: parser.parser,
        parserRefs: parser.uses.refs,
      };
    }),
  );
  return {
    serverId: server.id,
    serverIdLiteral: literal(server.id),
    className: plan.className,
    classDoc: docComment(plan.classDoc),
    // Every parser is typed `z.ZodType<…>`, whether its code calls zod or not.
    usesZod: definitions.length > 0 || toolsUseZod,
    usesParsers: [...definitions.map((definition) => definition.parserTree), ...tools.flatMap((tool) => tool.parser?.tree ?? [])].some(
      usesParsers,
    ),
    definitions,
    tools,
    warnings: plan.warnings,
    typeDigests: typeDigests(plan, TOOL_RESULT),
  };
}

/**
 * Definitions depth-first by the parsers they use, so most parsers can use others directly;
 * one that uses itself or a later one (only within a reference cycle) is marked lazy.
 */
function declarationOrder(definitions: (Omit<DefinitionPlan, "lazy"> & { parserRefs: Set<string> })[]): DefinitionPlan[] {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  const position = new Map<string, number>();
  const ordered: typeof definitions = [];
  const visit = (definition: (typeof definitions)[number]) => {
    if (position.has(definition.name)) return;
    // Claimed before its dependencies: a cycle back to it stops here.
    position.set(definition.name, Infinity);
    for (const name of definition.parserRefs) {
      const used = byName.get(name);
      if (used !== undefined) visit(used);
    }
    position.set(definition.name, ordered.length);
    ordered.push(definition);
  };
  for (const definition of definitions) visit(definition);
  return ordered.map(({ parserRefs, ...definition }) => {
    const own = position.get(definition.name)!;
    return { ...definition, lazy: [...parserRefs].some((name) => (position.get(name) ?? -1) >= own) };
  });
}

/** Whether an arguments object must have some key; through refs, and for any union member (to be safe). */
function hasRequired(node: IRNode, definitions: readonly NamedDefinition[], seen = new Set<string>()): boolean {
  if (node.kind === "object") return node.properties.some((property) => property.required) || (node.minProperties ?? 0) > 0;
  if (node.kind === "intersection" || node.kind === "union") return node.members.some((member) => hasRequired(member, definitions, seen));
  if (node.kind === "ref" && !seen.has(node.name)) {
    seen.add(node.name);
    const definition = definitions.find((candidate) => candidate.name === node.name);
    return definition !== undefined && hasRequired(definition.node, definitions, seen);
  }
  return false;
}

/** Tool arguments are always a JSON object; a missing or non-object schema allows any keys. */
function argsType(node: IRNode): Emitted {
  return node.kind === "unknown" ? { code: "{ [key: string]: rt.JsonValue }", uses: noUses() } : emitType(node);
}

function methodDocLines(tool: Tool, output: ResultSchema | undefined): string[] {
  const annotations = tool.annotations ?? {};
  const hints = [
    annotations.readOnlyHint === true ? "read-only" : "",
    annotations.destructiveHint === true ? "destructive" : "",
    annotations.idempotentHint === true ? "idempotent" : "",
    annotations.openWorldHint === true ? "open-world" : "",
  ].filter(Boolean);
  const title = tool.title ?? (typeof annotations.title === "string" ? annotations.title : undefined);
  const tags = toolTagsText(toolTagsOf(tool._meta));
  return [
    ...(title ? [title] : []),
    ...(tool.description ? [...(title ? [""] : []), ...tool.description.split(/\r?\n/)] : []),
    "",
    `Calls the \`${tool.name}\` tool.${hints.length ? ` Hints: ${hints.join(", ")}.` : ""}`,
    ...(tags === "" ? [] : [`Tags: ${tags}.`]),
    ...(requiresTask(tool) ? [TASK_NOTE] : []),
    ...resultLines(output),
  ];
}

/** What the method's doc says of its result: where its type came from, and for an inferred one what the method returns. */
function resultLines(output: ResultSchema | undefined): string[] {
  if (output === undefined)
    return ["The tool declares no output schema: the result is what it sent (`.text`, `.content`, `.json()`, `.images`, …)."];
  if (output.inferred === undefined) return [`The result type is ${origin(output)}.`];
  return [
    `The tool declares no output schema; the result type is ${origin(output)}.`,
    "Returns the result as sent (`.text`, `.get()`, `.json()`, …) with its value in `.value`: code written for the untyped tool still compiles.",
    "A value that does not match the type is passed on with a warning (CompositionClient onInferredMismatch), not rejected;",
    "`.value` is undefined when the result holds no JSON.",
  ];
}

/** Where a result type came from and how sure it is. */
function origin(output: ResultSchema): string {
  const { inferred } = output;
  if (inferred !== undefined) return `inferred from ${count(inferred.observations, "observation")}, quality ${inferred.quality}`;
  return output.pointer === "/outputSchema" ? "declared by the server" : `declared by the server (${output.pointer.slice(1)})`;
}

/** Fields of low consistency a result type's doc names at most; the others are counted in one line. */
const MAX_LOW_CONSISTENCY_LINES = 10;

function resultDocLines(tool: Tool, output: ResultSchema | undefined): string[] {
  if (output === undefined)
    return [`Result of the \`${tool.name}\` tool, which declares no output schema: its text, images, links or JSON, as sent.`];
  const description = (output.schema as { description?: unknown }).description;
  const low = output.inferred === undefined ? [] : lowConsistencyFields(output.inferred);
  return [
    `Result of the \`${tool.name}\` tool, ${origin(output)}.`,
    ...(typeof description === "string" ? ["", description] : []),
    ...(low.length === 0 ? [] : [""]),
    ...low.slice(0, MAX_LOW_CONSISTENCY_LINES).map((field) => `Low consistency: ${fieldConsistencyText(field)}.`),
    ...(low.length > MAX_LOW_CONSISTENCY_LINES ? [`Low consistency: ${count(low.length - MAX_LOW_CONSISTENCY_LINES, "more field")}.`] : []),
    ...(output.inferred?.content === undefined ? [] : ["", withoutJson(output.inferred.content)]),
  ];
}

/** A tool typed by its JSON answers that also answered without JSON: what `.value` is then. */
function withoutJson(content: Record<string, number>): string {
  const kinds = Object.entries(content).map(([kind, results]) => `${kind} in ${results}`);
  return `It also answered without JSON (${kinds.join(", ")}): \`.value\` is undefined for such an answer, read \`.text\` or \`.content\`.`;
}

/**
 * Names `index` (the barrel's) and the device names Windows reserves in every folder; compared
 * without case, as file names are on macOS and Windows.
 */
const FILE_RESERVED = ["index", ...WINDOWS_RESERVED_FILES];

/**
 * The module file of each server (without `.ts`), planned like identifiers: a server id that is
 * a reserved name, or that differs from an earlier one only in case, gets a numbered name that
 * no other server id has, with a warning. Servers come in bundle order (sorted by id), so the
 * same ids always get the same names.
 */
export function planModuleFiles(ids: readonly string[]): { files: Map<string, string>; warnings: GenerateWarning[] } {
  const key = (name: string) => name.toLowerCase();
  const wanted = new Set(ids.map(key));
  const taken = new Set(FILE_RESERVED);
  const files = new Map<string, string>();
  const warnings: GenerateWarning[] = [];
  for (const id of ids) {
    let name = id;
    for (let n = 2; taken.has(key(name)) || (name !== id && wanted.has(key(name))); n++) name = `${id}-${n}`;
    taken.add(key(name));
    files.set(id, name);
    if (name !== id) {
      const why = FILE_RESERVED.includes(key(id)) ? "is a reserved file name" : "differs from another server id only in case";
      warnings.push({ server: id, tool: "", pointer: "", message: `server id ${why}; its module is ${name}.ts` });
    }
  }
  return { files, warnings };
}
