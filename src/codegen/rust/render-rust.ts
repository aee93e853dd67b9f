import { isNonObjectOutput } from "../../bundle/output-schema.js";
import { DEFAULT_MIN_QUALITY } from "../../bundle/quality.js";
import { jsonText } from "../../bundle/serialize.js";
import { type Bundle, type BundleServer, ServerIdSchema, type Tool } from "../../bundle/types.js";
import { PmcpError } from "../../errors.js";
import { IRBuilder } from "../../ir/json-schema-to-ir.js";
import { clientClassName, NameScope, pascalCase, resultTypeName } from "../../ir/naming.js";
import { commentText } from "../code.js";
import { encodeGeneration, type GenerationRecord, nextGeneration } from "../generation-record.js";
import { hash } from "../hash.js";
import { BANNER_PREFIX, withRecord } from "../module-record.js";
import { type GenerateWarning, type ResultSchema, resultSchemaOf } from "../plan.js";
import type { RenderOptions, RenderResult, RenderStep, RenderSteps } from "../render.js";
import { RustItems } from "./emit-rust-type.js";
import { rustDoc } from "./rust-doc.js";
import { rustString } from "./rust-literal.js";
import { rustFieldName, rustModuleName } from "./rust-names.js";

/**
 * Type names a generated module must not declare: the prelude types its code names (a struct
 * `Option` would shadow the one every optional field uses), `Self`, and `C`, the client's type
 * parameter, which would stand for a result type named `C` in its methods' signatures.
 */
const RUST_RESERVED = ["Self", "C", "Option", "Some", "None", "Box", "Vec", "String", "Result", "Ok", "Err"];

/**
 * `mod.rs` is the parent module; `std`, `serde` and `serde_json` are the crates `mod.rs` names, which
 * a module of the same name would shadow there; the others are device names Windows reserves in every folder.
 */
const MODULE_RESERVED = [
  "mod",
  "std",
  "serde",
  "serde_json",
  "con",
  "prn",
  "aux",
  "nul",
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap((n) => [`com${n}`, `lpt${n}`]),
];

/**
 * `pmcp generate --lang rust`: `mod.rs` (the `CompositionClient` trait, `CompositionError`, one
 * `pub mod` per server) and one `<server>.rs` per server, a function of the bundle and the options.
 */
export function renderRust(bundle: Bundle, options: RenderOptions): RenderResult {
  const { steps, warnings } = renderRustSteps(bundle, options);
  const files = steps.map((step) => {
    const made = step.make();
    warnings.push(...made.warnings);
    return { path: step.path, content: made.content };
  });
  return { files, warnings };
}

/** A render step of Rust output: made without templates, which shape TypeScript modules only. */
interface RustStep extends Omit<RenderStep, "make"> {
  make(): { content: string; warnings: GenerateWarning[] };
}

interface RustSteps extends Omit<RenderSteps, "steps"> {
  steps: RustStep[];
}

/**
 * The files renderRust makes, each still to be made, with what it is made from, as renderSteps
 * gives TypeScript's to the reuse cache; `mod.rs` records the generation as `index.ts` does.
 */
export function renderRustSteps(bundle: Bundle, options: RenderOptions, previous?: GenerationRecord): RustSteps {
  for (const server of bundle.servers) {
    if (!ServerIdSchema.safeParse(server.id).success)
      throw new PmcpError("INVALID_INPUT", `server id ${JSON.stringify(server.id)} is not a valid server id`);
  }
  const minQuality = options.minQuality ?? DEFAULT_MIN_QUALITY;
  // What a module's text depends on besides its server; "rust" keeps its cache keys apart from TypeScript's.
  const settings = ["rust", options.generatorVersion, minQuality, options.source];
  const scope = new NameScope(MODULE_RESERVED);
  const warnings: GenerateWarning[] = [];
  const modules = bundle.servers.map((server) => {
    const wanted = rustModuleName(server.id);
    const module = scope.claim(wanted).name;
    if (module !== wanted) warnings.push({ server: server.id, tool: "", pointer: "", message: `its Rust module is ${module}.rs` });
    return module;
  });
  const steps: RustStep[] = bundle.servers.map((server, index) => ({
    path: `${modules[index]}.rs`,
    server: server.id,
    inputs: [settings, server],
    make: () => renderServer(server, options),
  }));
  const generation = nextGeneration(bundle, previous, minQuality);
  const mods = modules.map((module) => `pub mod ${module};\n`).join("");
  steps.push({
    path: "mod.rs",
    server: undefined,
    inputs: [settings, mods, generation.record],
    make: () => ({
      content: withRecord(`${banner(options)}\n${mods}\n${MOD_RS}`, [], encodeGeneration(generation.record)),
      warnings: [],
    }),
  });
  return { steps, warnings, generation };
}

function banner(options: RenderOptions, server?: BundleServer): string {
  const what = server === undefined ? "" : ` (server "${server.id}")`;
  return `${BANNER_PREFIX}${options.generatorVersion} from ${commentText(options.source)}${what}. Do not edit: run pmcp generate --lang rust.`;
}

function renderServer(server: BundleServer, options: RenderOptions): { content: string; warnings: GenerateWarning[] } {
  const minQuality = options.minQuality ?? DEFAULT_MIN_QUALITY;
  const scope = new NameScope(RUST_RESERVED);
  const methods = new NameScope(["new"]);
  const className = scope.claim(clientClassName(server.id)).name;
  const warnings: GenerateWarning[] = [];
  const warn = (tool: string, pointer: string, message: string) => warnings.push({ server: server.id, tool, pointer, message });
  const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  const named = server.tools.map((tool) => {
    const base = pascalCase(tool.name, "Tool");
    const output = resultSchemaOf(tool, inferred.get(tool.name), minQuality);
    const claims = {
      method: methods.claim(rustFieldName(tool.name, "tool")),
      args: scope.claim(`${base}Args`),
      result: scope.claim(resultTypeName(tool, output?.schema) ?? `${base}Result`, ["Schema"]),
    };
    for (const [what, claim] of Object.entries(claims)) {
      if (claim.renamed) warn(tool.name, "", `${what} name taken by another tool or type; using ${claim.name}`);
    }
    return { tool, output, claims };
  });

  const builder = new IRBuilder(scope);
  const built = named.map(({ tool, output, claims }) => ({
    tool,
    output,
    claims,
    input: tool.inputSchema === undefined ? undefined : builder.build(tool.inputSchema, tool.name, "/inputSchema"),
    result: output === undefined ? undefined : builder.build(output.schema, tool.name, output.pointer),
  }));
  for (const warning of builder.warnings) warn(warning.tool, warning.pointer, warning.message);

  const items = new RustItems(scope, builder.definitions);
  const methodCode = built.map(({ tool, output, claims, input, result }) => {
    const args = claims.args.name;
    const argsDoc = [`Arguments of the \`${tool.name}\` tool.`];
    if (input === undefined || input.kind === "unknown")
      items.declareArgs(args, { kind: "object", properties: [], additional: true }, argsDoc);
    else items.declareArgs(args, input, argsDoc);
    if (result !== undefined && output !== undefined) items.declare(claims.result.name, result, resultDoc(tool, output));
    return method(tool, claims.method.name, args, result === undefined ? undefined : claims.result.name, output);
  });
  for (const definition of builder.definitions) items.declareDefinition(definition);

  const classDoc = [
    `Typed client for the "${server.id}" MCP server${server.serverInfo ? ` (${server.serverInfo.name} ${server.serverInfo.version})` : ""}.`,
    ...(server.instructions ? ["", server.instructions] : []),
  ];
  const code = [
    `${banner(options, server)}\n`,
    items.code(),
    `${rustDoc(classDoc.join("\n"))}pub struct ${className}<'a, C: super::CompositionClient> {\n${
      // A server without tools never reads its client.
      server.tools.length === 0 ? "    #[allow(dead_code)]\n" : ""
    }    client: &'a C,\n}\n`,
    `impl<'a, C: super::CompositionClient> ${className}<'a, C> {\n` +
      `    /// The server's id in the bundle, as \`call_tool\` receives it.\n    pub const SERVER: &'static str = ${rustString(server.id)};\n\n` +
      `    pub fn new(client: &'a C) -> Self {\n        Self { client }\n    }\n${methodCode.join("")}}\n`,
  ];
  const digests = named.map(({ tool, output, claims }): [string, string] => [
    tool.name,
    hash(jsonText([tool.inputSchema, output?.schema ?? "serde_json::Value", claims.result.name, output?.inferred !== undefined])).slice(
      0,
      16,
    ),
  ]);
  return { content: withRecord(code.join("\n"), digests), warnings };
}

function method(tool: Tool, name: string, args: string, result: string | undefined, output: ResultSchema | undefined): string {
  const nonObject = output !== undefined && output.inferred === undefined && isNonObjectOutput(output.schema);
  const doc = [
    ...(tool.title ? [tool.title] : []),
    ...(tool.description ? [...(tool.title ? [""] : []), tool.description] : []),
    ...(tool.title || tool.description ? [""] : []),
    `Calls the \`${tool.name}\` tool.`,
    ...(result === undefined ? ["The tool declares no output schema: the result is the JSON the client returns for it."] : []),
  ];
  const value = nonObject ? "super::unwrap_result(value)" : "value";
  return `
${rustDoc(doc.join("\n"), "    ")}    pub async fn ${name}(&self, args: ${args}) -> Result<${result ?? "serde_json::Value"}, super::CompositionError> {
        let args = serde_json::to_value(args).map_err(super::CompositionError::Encode)?;
        let value = self.client.call_tool(Self::SERVER, ${rustString(tool.name)}, args).await?;
        ${result === undefined ? "Ok(value)" : `serde_json::from_value(${value}).map_err(super::CompositionError::Decode)`}
    }
`;
}

function resultDoc(tool: Tool, output: ResultSchema): string[] {
  const description = (output.schema as { description?: unknown }).description;
  const origin =
    output.inferred === undefined
      ? "declared by the server"
      : `inferred from observations (quality ${output.inferred.quality}): a result that does not fit is a \`CompositionError::Decode\``;
  return [`Result of the \`${tool.name}\` tool, ${origin}.`, ...(typeof description === "string" ? ["", description] : [])];
}

/** `mod.rs` after its `pub mod` lines: what every client uses, since no published crate provides it. */
const MOD_RS = `/// What a generated client method returns when the call does not give a typed result.
#[derive(Debug)]
pub enum CompositionError {
    /// The call failed: transport, protocol or server (the client's message).
    Call(String),
    /// The tool answered with \`isError: true\`: its content, as sent.
    Tool(serde_json::Value),
    /// The arguments could not be written as JSON.
    Encode(serde_json::Error),
    /// The result does not fit the generated type.
    Decode(serde_json::Error),
}

impl std::fmt::Display for CompositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompositionError::Call(message) => write!(f, "call failed: {message}"),
            CompositionError::Tool(content) => write!(f, "tool error: {content}"),
            CompositionError::Encode(error) => write!(f, "arguments not encoded: {error}"),
            CompositionError::Decode(error) => write!(f, "result does not match its type: {error}"),
        }
    }
}

impl std::error::Error for CompositionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CompositionError::Encode(error) | CompositionError::Decode(error) => Some(error),
            _ => None,
        }
    }
}

/// Calls a tool: implement it over any MCP client (PMCP's, rmcp's). Return the result's
/// \`structuredContent\` (a result without one: its \`content\` blocks as a JSON array),
/// \`CompositionError::Tool\` for \`isError\`, \`CompositionError::Call\` for a failed call.
///
/// A plain \`async fn\`: any implementation fits, \`Send\` or not, so a caller cannot require the
/// futures to be \`Send\` (to \`tokio::spawn\` them) through this trait.
#[allow(async_fn_in_trait)]
pub trait CompositionClient {
    async fn call_tool(&self, server: &str, tool: &str, args: serde_json::Value) -> Result<serde_json::Value, CompositionError>;
}

/// For a field that may be absent or null: present (even as null) is \`Some\`, absent \`None\`.
#[doc(hidden)]
pub fn present<'de, D: serde::Deserializer<'de>, T: serde::Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A result whose schema is not an object comes from 2025-era servers as \`{ "result": value }\`.
#[doc(hidden)]
pub fn unwrap_result(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(mut object) if object.len() == 1 && object.contains_key("result") => object.remove("result").unwrap_or_default(),
        other => other,
    }
}
`;
