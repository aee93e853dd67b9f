import { DEFAULT_MIN_QUALITY, type Quality } from "../bundle/quality.js";
import { checkServerIds } from "../bundle/server-ids.js";
import type { Bundle } from "../bundle/types.js";
import type { ParserTree } from "../codegen/parser-tree.js";
import { planServerModule } from "../codegen/plan.js";
import { helperTypes } from "../inspect/result-type.js";
import { camelCase, NameScope } from "../ir/naming.js";
import type { Returns } from "./executor.js";

/**
 * The declarations a program is type-checked against, built in memory from a bundle with
 * the generator's own planner: the same type and method names as `pmcp generate` writes.
 */
export interface ClientDeclarations {
  /** One ambient declaration file: the `rt` types, `console`, and per server a namespace of types and a global client. */
  text: string;
  servers: ServerGlobal[];
}

/** One upstream server as a program sees it: the global it is reached through and its methods. */
export interface ServerGlobal {
  serverId: string;
  /** The global's name: the generated index's namespace name (`inventory`). */
  global: string;
  tools: ToolDeclaration[];
  /** The module's named parsers, by name, which the tools' result parsers refer to. */
  parsers: [name: string, tree: ParserTree][];
}

export interface ToolDeclaration {
  /** The tool's wire name, for the call the method makes. */
  toolName: string;
  method: string;
  /** How a program calls it: `inventory.getStock(args: GetStockArgs): Promise<StockLevel>`. */
  signature: string;
  /** `type <Name> = …;` for the arguments, the result and every helper type they use. */
  types: string;
  /** "value" for a declared result schema, "parsed" for an inferred one (`rt.ParsedResult`), else "content" (`rt.ToolResult`). */
  returns: Returns;
  /** The result's parser as data, the generated client's own; absent when `returns` is "content". */
  parser?: ParserTree;
  /** The result schema was inferred from observations: a mismatch is reported, not thrown, as in generated clients. */
  lenient: boolean;
  /** The declared output is not an object: 2025-era answers come wrapped as `{ result }`. */
  nonObject: boolean;
  /** Safe to repeat after a transport failure (read-only or idempotent). */
  retryable: boolean;
  /** The tool requires task augmentation: calls run it as a task. */
  task: boolean;
}

export interface DeclarationOptions {
  /** The lowest quality of inferred schema used for a tool that declares none, as for `pmcp generate`. */
  minQuality?: Quality;
  /** Result parsers reject keys that `additionalProperties: false` forbids, as `pmcp generate --strict-objects` writes them. */
  strictObjects?: boolean;
}

/**
 * Names generated modules reserve, plus every global the sandbox has that a server id can
 * camel-case to (a lowercase name): a server named `console` or `performance` becomes
 * `console2` or `performance2`, never the program's own. Object.prototype's names count too:
 * the global object inherits them (`to-string` → `toString`). A test lists the running
 * sandbox's globals and checks each is here.
 */
export const RESERVED_GLOBALS: readonly string[] = [
  "z",
  "rt",
  "console",
  "performance",
  "queueMicrotask",
  "atob",
  "btoa",
  "globalThis",
  "undefined",
  "eval",
  "isNaN",
  "isFinite",
  "parseInt",
  "parseFloat",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  ...Object.getOwnPropertyNames(Object.prototype),
];

/**
 * What every program sees besides the clients. `rt` matches the generated modules' runtime
 * namespace, so a type shown by inspect (`rt.ToolResult`) reads the same here. The shapes are
 * the runtime's (packages/runtime/src/tool-result.ts, errors.ts) without what needs zod or the SDK.
 */
const PRELUDE = `declare namespace rt {
  type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
  /** Optional keys admit \`undefined\`, as the SDK's types do, so a runtime result fits these types. */
  type Meta = { [key: string]: unknown };
  type Annotations = { audience?: Array<"user" | "assistant"> | undefined; priority?: number | undefined; lastModified?: string | undefined };
  interface TextContent { type: "text"; text: string; annotations?: Annotations | undefined; _meta?: Meta | undefined }
  interface ImageContent { type: "image"; data: string; mimeType: string; annotations?: Annotations | undefined; _meta?: Meta | undefined }
  interface AudioContent { type: "audio"; data: string; mimeType: string; annotations?: Annotations | undefined; _meta?: Meta | undefined }
  interface ResourceLink {
    type: "resource_link";
    uri: string;
    name: string;
    title?: string | undefined;
    description?: string | undefined;
    mimeType?: string | undefined;
    size?: number | undefined;
    annotations?: Annotations | undefined;
    _meta?: Meta | undefined;
  }
  type ResourceContents =
    | { uri: string; mimeType?: string | undefined; text: string; _meta?: Meta | undefined }
    | { uri: string; mimeType?: string | undefined; blob: string; _meta?: Meta | undefined };
  interface EmbeddedResource { type: "resource"; resource: ResourceContents; annotations?: Annotations | undefined; _meta?: Meta | undefined }
  /** A whole block of a type this protocol knows; \`ToolResult.content\` may hold other values too. */
  type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;
  /** What a tool without an output schema returns: its result as it came (text, images, links or JSON). */
  interface ToolResult {
    /** The result as the server sent it: its fields may hold anything. */
    readonly raw: { readonly content?: unknown; readonly structuredContent?: unknown; readonly isError?: unknown; readonly _meta?: unknown };
    readonly serverId: string;
    readonly toolName: string;
    /** The content array as sent: blocks of any type, and whatever else is there (null, numbers, blocks missing a field). The members below hold only whole blocks. */
    readonly content: JsonValue[];
    /** The whole blocks of \`content\`, of the types above, in order: \`content\` typed, without the rest. */
    readonly blocks: ContentBlock[];
    /** All text blocks joined with "\\n"; "" when there are none. */
    readonly text: string;
    readonly images: ImageContent[];
    readonly audio: AudioContent[];
    readonly resourceLinks: ResourceLink[];
    readonly resources: EmbeddedResource[];
    readonly structuredContent: JsonValue | undefined;
    /** \`structuredContent\` if any, else the first text block parsed; throws (code INVALID_RESPONSE) when there is no JSON. */
    json(): JsonValue;
    /** A key of the JSON object; undefined when absent. */
    get(key: string): JsonValue | undefined;
    has(key: string): boolean;
    /** A key of the JSON object; throws (code INVALID_RESPONSE) when it is absent. */
    require(key: string): JsonValue;
  }
  /**
   * What a tool whose result type was inferred from observations returns: the result as it came,
   * with the value typed leniently in \`value\` (passed on when it does not match; undefined when the result holds no JSON).
   */
  interface ParsedResult<T> extends ToolResult {
    readonly value: T;
  }
  /** What a failed call throws: catch it (\`catch (e) { const error = e as rt.CallError; }\`) and switch on \`code\`. */
  interface CallError extends Error {
    /** TIMEOUT, TOOL_CALL_FAILED, OUTPUT_VALIDATION, INVALID_RESPONSE, TRANSPORT, … */
    readonly code: string;
    readonly serverId: string;
    readonly toolName: string;
  }
}
/** Lines written here are returned with the program's result. */
declare const console: {
  log(...data: unknown[]): void;
  info(...data: unknown[]): void;
  warn(...data: unknown[]): void;
  error(...data: unknown[]): void;
  debug(...data: unknown[]): void;
};
`;

/**
 * Per server, a namespace holding its types (names are per server, as in its generated
 * module) and a global client of the same name typed by an interface named like the generated
 * class. Every identifier comes from the planner; server text reaches the file only as
 * comments through docComment.
 */
export function buildDeclarations(bundle: Bundle, options: DeclarationOptions = {}): ClientDeclarations {
  const globals = new NameScope(RESERVED_GLOBALS);
  const parts = [PRELUDE];
  const servers: ServerGlobal[] = [];
  checkServerIds(bundle.servers);
  for (const server of bundle.servers) {
    const plan = planServerModule(server, {
      strictObjects: options.strictObjects ?? false,
      minQuality: options.minQuality ?? DEFAULT_MIN_QUALITY,
    });
    const global = globals.claim(camelCase(server.id, "server")).name;
    const types = [
      ...plan.definitions.map((definition) => `${definition.doc}type ${definition.name} = ${definition.type};`),
      ...plan.tools.flatMap((tool) => [
        `${tool.argsDoc}type ${tool.argsType} = ${tool.argsTypeCode};`,
        `${tool.resultDoc}type ${tool.resultType} = ${tool.resultTypeCode};`,
      ]),
    ];
    const methods = plan.tools.map((tool) => `${tool.methodDoc}  ${method(tool)};`);
    parts.push(
      `declare namespace ${global} {\n${types.join("\n")}\n${plan.classDoc}interface ${plan.className} {\n${methods.join("\n")}\n}\n}\n`,
      `declare const ${global}: ${global}.${plan.className};\n`,
    );
    servers.push({
      serverId: server.id,
      global,
      tools: plan.tools.map((tool, index) => ({
        // Plan tools are the server's tools in order.
        toolName: server.tools[index]!.name,
        method: tool.methodName,
        signature: `${global}.${method(tool)}`,
        types: [
          `type ${tool.argsType} = ${tool.argsTypeCode};`,
          `type ${tool.resultType} = ${tool.resultTypeCode};`,
          ...helperTypes(plan, [...tool.argsRefs, ...tool.resultRefs]),
        ].join("\n"),
        returns: tool.parser === undefined ? "content" : tool.lenient ? "parsed" : "value",
        ...(tool.parser === undefined ? {} : { parser: tool.parser.tree }),
        lenient: tool.lenient,
        nonObject: tool.nonObject,
        retryable: tool.retryable,
        task: tool.task,
      })),
      parsers: plan.definitions.map((definition) => [definition.name, definition.parserTree]),
    });
  }
  return { text: parts.join("\n"), servers };
}

function method(tool: { methodName: string; argsType: string; argsOptional: boolean; returnType: string }): string {
  return `${tool.methodName}(args${tool.argsOptional ? "?" : ""}: ${tool.argsType}): Promise<${tool.returnType}>`;
}
