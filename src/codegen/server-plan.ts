/**
 * One server's plan, the same for every language: its tools in bundle order with their names
 * claimed, each schema built into IR, the named definitions, the warnings. The emitters turn it into
 * code: TypeScript's module plan (plan.ts, which code mode's declarations read too) and Rust's
 * module (rust/render-rust.ts). What differs per language is only how names are spelled and which
 * it reserves, given as `LanguageNames`; a third language is one more emitter.
 */
import { isNonObjectOutput, outputSchemaOf } from "../bundle/output-schema.js";
import { atLeast, type Quality } from "../bundle/quality.js";
import { jsonText } from "../bundle/serialize.js";
import type { BundleServer, InferredTool, Tool } from "../bundle/types.js";
import type { IRNode, NamedDefinition } from "../ir/ir.js";
import { IRBuilder } from "../ir/json-schema-to-ir.js";
import { clientClassName, NameScope, pascalCase, resultTypeName } from "../ir/naming.js";
import { hash } from "./hash.js";

/** A problem met while generating, located by server, tool and JSON pointer. */
export interface GenerateWarning {
  server: string;
  tool: string;
  pointer: string;
  message: string;
}

/** The schema a tool's result type comes from: declared by the server, or inferred from observations. */
export interface ResultSchema {
  schema: unknown;
  pointer: string;
  inferred?: InferredTool;
}

/** How a language spells the names a server's module declares. */
export interface LanguageNames {
  /** Names a module must not declare: what its own code names (imports, globals, prelude types). */
  reserved: readonly string[];
  /** Names a client's methods must not take. */
  reservedMethods: readonly string[];
  /** A tool's method, before it is made unique. */
  methodName(tool: string): string;
  /** Every this many levels of a schema, a part with structure gets a name of its own (`IRBuilder`'s `nameEvery`). */
  nameEvery?: number;
}

export interface PlannedTool {
  tool: Tool;
  /** Where its result type comes from; absent for a tool that has none (its result is returned as it came). */
  output: ResultSchema | undefined;
  method: string;
  /** The arguments' type name. */
  args: string;
  /** The result's type name (and, with `Schema` after it, its parser's). */
  result: string;
  /** The arguments' IR: `unknown` for a tool without an input schema. */
  input: IRNode;
  /** The result's IR, when the tool has a result schema. */
  resultNode: IRNode | undefined;
  /** The result's type was learned from observations: a result that does not fit is passed on, not refused. */
  learned: boolean;
  /** The declared output schema's root is not an object: 2025-era answers wrap it as `{ result }`. */
  nonObject: boolean;
}

export interface ServerPlan {
  server: BundleServer;
  className: string;
  /** The client's doc, as lines. */
  classDoc: string[];
  tools: PlannedTool[];
  /** The named definitions the tools' IR refers to, in the order they were met. */
  definitions: readonly NamedDefinition[];
  /** The module's names: an emitter claims here the ones it adds (Rust's structs of inline objects). */
  scope: NameScope;
  warnings: GenerateWarning[];
}

/**
 * Plans one server: resolves every name first (tools in bundle order, which is sorted by name), then
 * builds each schema's IR. Names depend only on this server, so adding servers to a bundle never
 * renames anything in its module.
 */
export function planServer(server: BundleServer, names: LanguageNames, minQuality: Quality): ServerPlan {
  const scope = new NameScope(names.reserved);
  const methods = new NameScope(names.reservedMethods);
  const warnings: GenerateWarning[] = [];
  const warn = (tool: string, pointer: string, message: string) => warnings.push({ server: server.id, tool, pointer, message });
  const className = scope.claim(clientClassName(server.id)).name;

  const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  const named = server.tools.map((tool) => {
    const base = pascalCase(tool.name, "Tool");
    const output = resultSchemaOf(tool, inferred.get(tool.name), minQuality);
    const claims = {
      method: methods.claim(names.methodName(tool.name)),
      args: scope.claim(`${base}Args`),
      result: scope.claim(resultTypeName(tool, output?.schema) ?? `${base}Result`, ["Schema"]),
    };
    for (const [what, claim] of Object.entries(claims)) {
      if (claim.renamed) warn(tool.name, "", `${what} name taken by another tool or type; using ${claim.name}`);
    }
    return { tool, output, claims };
  });

  const builder = new IRBuilder(scope, names.nameEvery === undefined ? {} : { nameEvery: names.nameEvery });
  const tools = named.map(
    ({ tool, output, claims }): PlannedTool => ({
      tool,
      output,
      method: claims.method.name,
      args: claims.args.name,
      result: claims.result.name,
      input: tool.inputSchema === undefined ? { kind: "unknown" } : builder.build(tool.inputSchema, tool.name, "/inputSchema"),
      resultNode: output === undefined ? undefined : builder.build(output.schema, tool.name, output.pointer),
      learned: output?.inferred !== undefined,
      nonObject: output !== undefined && output.inferred === undefined && isNonObjectOutput(output.schema),
    }),
  );
  for (const warning of builder.warnings) warn(warning.tool, warning.pointer, warning.message);
  return {
    server,
    className,
    classDoc: [
      `Typed client for the "${server.id}" MCP server${server.serverInfo ? ` (${server.serverInfo.name} ${server.serverInfo.version})` : ""}.`,
      ...(server.instructions ? ["", server.instructions] : []),
    ],
    tools,
    definitions: builder.definitions,
    scope,
    warnings,
  };
}

/**
 * Per tool, a digest of what its types are made from, so `generate --check` can name the tools whose
 * types changed; `untyped` is what a language's result is without a result schema.
 */
export function typeDigests(plan: ServerPlan, untyped: string): [tool: string, digest: string][] {
  return plan.tools.map(({ tool, output, result, learned }) => [
    tool.name,
    hash(jsonText([tool.inputSchema, output?.schema ?? untyped, result, learned])).slice(0, 16),
  ]);
}

/** A declared schema wins; else an inferred one of at least `minQuality`; else none (the result is returned as it came). */
export function resultSchemaOf(tool: Tool, inferred: InferredTool | undefined, minQuality: Quality): ResultSchema | undefined {
  const declared = outputSchemaOf(tool);
  if (declared !== undefined) return declared;
  if (inferred === undefined || inferred.observations === 0 || !atLeast(inferred.quality, minQuality)) return undefined;
  return { schema: inferred.schema, pointer: "/inferred/schema", inferred };
}

/** The device names Windows reserves in every folder, which no module file may take (compared without case). */
export const WINDOWS_RESERVED_FILES = ["con", "prn", "aux", "nul", ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`])];
