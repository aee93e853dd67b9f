import type { BundleServer, Tool } from "../bundle/types.js";
import { outputSchemaOf } from "../bundle/output-schema.js";
import { docComment, literal } from "./code.js";
import { emitParser } from "./emit-parser.js";
import { emitType } from "./emit-type.js";
import type { IRNode, NamedDefinition } from "./ir.js";
import { IRBuilder } from "./json-schema-to-ir.js";
import { camelCase, NameScope, pascalCase } from "./naming.js";

/** A problem met while generating, located by server, tool and JSON pointer. */
export interface GenerateWarning {
  server: string;
  tool: string;
  pointer: string;
  message: string;
}

/** Everything a server module template needs, already escaped for its position. */
export interface ServerModulePlan {
  serverId: string;
  serverIdLiteral: string;
  className: string;
  classDoc: string;
  usesZod: boolean;
  definitions: { name: string; parser: string; doc: string; type: string; parserCode: string }[];
  tools: ToolPlan[];
  warnings: GenerateWarning[];
}

export interface ToolPlan {
  toolLiteral: string;
  methodName: string;
  methodDoc: string;
  argsType: string;
  argsTypeCode: string;
  argsDoc: string;
  argsOptional: boolean;
  resultType: string;
  resultTypeCode: string;
  resultDoc: string;
  parser: string;
  parserCode: string;
  retryable: boolean;
}

export interface PlanOptions {
  strictObjects: boolean;
}

/** Names the generated module itself uses at top level. */
const MODULE_RESERVED = ["z", "rt"];
/** `then` would make every client instance a thenable; `constructor` is the class's own. */
const MEMBER_RESERVED = ["constructor", "then"];

/**
 * Plans one server's module: resolves every name first (tools in bundle order, which is
 * sorted by name), then builds each schema's IR and emits its type and parser. Names
 * depend only on this server, so adding servers to a bundle never renames anything here.
 */
export function planServerModule(server: BundleServer, options: PlanOptions): ServerModulePlan {
  const scope = new NameScope(MODULE_RESERVED);
  const members = new NameScope(MEMBER_RESERVED);
  const warnings: GenerateWarning[] = [];
  const warn = (tool: string, pointer: string, message: string) => warnings.push({ server: server.id, tool, pointer, message });
  const className = scope.claim(clientClassName(server.id)).name;

  const named = server.tools.map((tool) => {
    const base = pascalCase(tool.name, "Tool");
    const output = outputSchemaOf(tool);
    const wantedResult = resultTypeName(tool, output?.schema) ?? `${base}Result`;
    const claims = {
      method: members.claim(camelCase(tool.name, "tool")),
      args: scope.claim(`${base}Args`),
      result: scope.claim(wantedResult, ["Schema"]),
    };
    for (const [what, claim] of Object.entries(claims)) {
      if (claim.renamed) warn(tool.name, "", `${what} name taken by another tool or type; using ${claim.name}`);
    }
    return { tool, output, claims };
  });

  const builder = new IRBuilder(scope);
  const tools = named.map(({ tool, output, claims }): ToolPlan => {
    const input = tool.inputSchema === undefined ? ({ kind: "unknown" } as const) : builder.build(tool.inputSchema, tool.name, "/inputSchema");
    const result = output === undefined ? ({ kind: "unknown" } as const) : builder.build(output.schema, tool.name, output.pointer);
    const annotations = tool.annotations ?? {};
    return {
      toolLiteral: literal(tool.name),
      methodName: claims.method.name,
      methodDoc: docComment(methodDocLines(tool, output?.pointer), "  "),
      argsType: claims.args.name,
      argsTypeCode: argsType(input),
      argsDoc: docComment([`Arguments of the \`${tool.name}\` tool.`]),
      argsOptional: !hasRequired(input, builder.definitions),
      resultType: claims.result.name,
      resultTypeCode: emitType(result),
      resultDoc: docComment(resultDocLines(tool, output)),
      parser: `${claims.result.name}Schema`,
      parserCode: emitParser(result, options),
      retryable: annotations.readOnlyHint === true || annotations.idempotentHint === true,
    };
  });
  for (const warning of builder.warnings) warn(warning.tool, warning.pointer, warning.message);

  const definitions = builder.definitions.map((definition) => ({
    name: definition.name,
    parser: `${definition.name}Schema`,
    doc: docComment(definition.description ? [definition.description] : []),
    type: emitType(definition.node),
    parserCode: emitParser(definition.node, options),
  }));
  return {
    serverId: server.id,
    serverIdLiteral: literal(server.id),
    className,
    classDoc: docComment([
      `Typed client for the "${server.id}" MCP server${server.serverInfo ? ` (${server.serverInfo.name} ${server.serverInfo.version})` : ""}.`,
      ...(server.instructions ? ["", server.instructions] : []),
    ]),
    usesZod: definitions.length > 0 || tools.some((tool) => /\bz\./.test(tool.parserCode)),
    definitions,
    tools,
    warnings,
  };
}

/** The client class of a server: a function of its id alone, claimed first in its module. */
export function clientClassName(serverId: string): string {
  return `${pascalCase(serverId, "Server")}Client`;
}

/** `pmcp:outputTypeName` (annotations, then `_meta`), else the output schema's `title`. */
export function resultTypeName(tool: Tool, schema: unknown): string | undefined {
  for (const candidate of [tool.annotations?.["pmcp:outputTypeName"], tool._meta?.["pmcp:outputTypeName"], (schema as { title?: unknown } | undefined)?.title]) {
    if (typeof candidate === "string" && /[A-Za-z0-9]/.test(candidate)) return pascalCase(candidate);
  }
  return undefined;
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
function argsType(node: IRNode): string {
  return node.kind === "unknown" ? "{ [key: string]: rt.JsonValue }" : emitType(node);
}

function methodDocLines(tool: Tool, outputPointer: string | undefined): string[] {
  const annotations = tool.annotations ?? {};
  const hints = [
    annotations.readOnlyHint === true ? "read-only" : "",
    annotations.destructiveHint === true ? "destructive" : "",
    annotations.idempotentHint === true ? "idempotent" : "",
    annotations.openWorldHint === true ? "open-world" : "",
  ].filter(Boolean);
  const title = tool.title ?? (typeof annotations.title === "string" ? annotations.title : undefined);
  return [
    ...(title ? [title] : []),
    ...(tool.description ? [...(title ? [""] : []), ...tool.description.split(/\r?\n/)] : []),
    "",
    `Calls the \`${tool.name}\` tool.${hints.length ? ` Hints: ${hints.join(", ")}.` : ""}`,
    ...(outputPointer === undefined ? ["The tool declares no output schema: the result is any JSON value."] : []),
  ];
}

function resultDocLines(tool: Tool, output: { schema: unknown; pointer: string } | undefined): string[] {
  if (output === undefined) return [`Result of the \`${tool.name}\` tool, which declares no output schema: any JSON value.`];
  const description = (output.schema as { description?: unknown }).description;
  return [`Result of the \`${tool.name}\` tool.`, ...(typeof description === "string" ? ["", description] : [])];
}
