/**
 * What the Handlebars templates receive: a documented, data-only view of a server module's plan
 * (strings, booleans and lists of them, nothing to call), with a version a user's template can
 * check. Code fragments in it (a type, a parser, a doc comment) are TypeScript, already made safe
 * for the place the field's name says; names are identifiers; `…Literal` fields are string
 * literals. The view changes only with its version: a field added keeps the version, one removed
 * or changed in meaning bumps it.
 */

import type { ServerModulePlan } from "./plan.js";

/** The version of the views below; templates may test `{{#if (eq viewVersion 1)}}` via their own helpers, or read it. */
export const TEMPLATE_VIEW_VERSION = 1;

/** What `server.ts.hbs` receives: one server's module. */
export interface ServerTemplateView {
  viewVersion: typeof TEMPLATE_VIEW_VERSION;
  /** The first line: a comment naming the generator, the bundle and the server. */
  banner: string;
  /** The runtime's module specifier, as a string literal. */
  runtimeImport: string;
  /** The module of the runtime's parsers (`<runtime>/parsers`), as a string literal. */
  parsersImport: string;
  /** Leave each parser's type to the compiler instead of asserting it (the generator's own tests). */
  checkParsers: boolean;
  /** Whether any parser uses zod, so that `z` is imported. */
  usesZod: boolean;
  /** Whether any parser calls the runtime's parsers, so that they are imported (as `parsers`). */
  usesParsers: boolean;
  /** The server's id, as the bundle has it. */
  serverId: string;
  /** The server's id as a string literal: the client's default key in the CompositionClient's configuration. */
  serverIdLiteral: string;
  className: string;
  /** The client class's doc comment, with its trailing newline; "" for none. */
  classDoc: string;
  /** Named types and their parsers, each declared after those it uses except within a reference cycle. */
  definitions: DefinitionView[];
  tools: ToolView[];
}

export interface DefinitionView {
  name: string;
  /** The parser's name. */
  parser: string;
  doc: string;
  /** The type's TypeScript. */
  type: string;
  /** The parser's TypeScript (a zod expression). */
  parserCode: string;
  /** The parser refers to itself or to a later definition: it is built on first use (`z.lazy`). */
  lazy: boolean;
}

export interface ToolView {
  toolLiteral: string;
  methodName: string;
  methodDoc: string;
  argsType: string;
  argsTypeCode: string;
  argsDoc: string;
  /** Every argument is optional: the method may be called without them. */
  argsOptional: boolean;
  resultType: string;
  resultTypeCode: string;
  resultDoc: string;
  /** What the method's promise resolves to (see `ToolPlan.returnType`). */
  returnType: string;
  /** The result's parser, for a tool with a result schema. */
  parser?: { name: string; code: string };
  retryable: boolean;
  /** The result schema was inferred: a mismatch is reported, not thrown. */
  lenient: boolean;
  /** The output schema's root is not an object: 2025-era answers wrap it as `{ result }`. */
  nonObject: boolean;
  /** The tool requires task augmentation. */
  task: boolean;
  /** The protocol version the bundle recorded for the server, as a literal. */
  protocolLiteral?: string;
}

/** What `index.ts.hbs` receives: the modules it re-exports. */
export interface IndexTemplateView {
  viewVersion: typeof TEMPLATE_VIEW_VERSION;
  banner: string;
  modules: { namespace: string; importPath: string; className: string; alias: string }[];
}

/** The view of a planned module: the plan's data a template may use, and nothing of the generator's own bookkeeping. */
export function serverView(
  plan: ServerModulePlan,
  file: { banner: string; runtimeImport: string; parsersImport: string; checkParsers: boolean },
): ServerTemplateView {
  return {
    viewVersion: TEMPLATE_VIEW_VERSION,
    ...file,
    usesZod: plan.usesZod,
    usesParsers: plan.usesParsers,
    serverId: plan.serverId,
    serverIdLiteral: plan.serverIdLiteral,
    className: plan.className,
    classDoc: plan.classDoc,
    definitions: plan.definitions.map(({ name, parser, doc, type, parserCode, lazy }) => ({ name, parser, doc, type, parserCode, lazy })),
    tools: plan.tools.map((tool) => ({
      toolLiteral: tool.toolLiteral,
      methodName: tool.methodName,
      methodDoc: tool.methodDoc,
      argsType: tool.argsType,
      argsTypeCode: tool.argsTypeCode,
      argsDoc: tool.argsDoc,
      argsOptional: tool.argsOptional,
      resultType: tool.resultType,
      resultTypeCode: tool.resultTypeCode,
      resultDoc: tool.resultDoc,
      returnType: tool.returnType,
      ...(tool.parser === undefined ? {} : { parser: { name: tool.parser.name, code: tool.parser.code } }),
      retryable: tool.retryable,
      lenient: tool.lenient,
      nonObject: tool.nonObject,
      task: tool.task,
      ...(tool.protocolLiteral === undefined ? {} : { protocolLiteral: tool.protocolLiteral }),
    })),
  };
}
