import { DEFAULT_MIN_QUALITY } from "../../bundle/quality.js";
import { checkServerIds } from "../../bundle/server-ids.js";
import type { Bundle, BundleServer, Tool } from "../../bundle/types.js";
import { NameScope } from "../../ir/naming.js";
import { commentText } from "../code.js";
import { encodeGeneration, type GenerationRecord, nextGeneration } from "../generation-record.js";
import { BANNER_PREFIX, withRecord } from "../module-record.js";
import type { RenderOptions, RenderResult, RenderStep, RenderSteps } from "../render.js";
import {
  type GenerateWarning,
  type LanguageNames,
  type PlannedTool,
  planServer,
  type ResultSchema,
  typeDigests,
  WINDOWS_RESERVED_FILES,
} from "../server-plan.js";
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
const MODULE_RESERVED = ["mod", "std", "serde", "serde_json", ...WINDOWS_RESERVED_FILES];

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
  checkServerIds(bundle.servers);
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
      content: withRecord(`${banner(options)}\n${MOD_ATTRIBUTES}${mods}\n${MOD_RS}`, [], encodeGeneration(generation.record)),
      warnings: [],
    }),
  });
  return { steps, warnings, generation };
}

function banner(options: RenderOptions, server?: BundleServer): string {
  const what = server === undefined ? "" : ` (server "${server.id}")`;
  return `${BANNER_PREFIX}${options.generatorVersion} from ${commentText(options.source)}${what}. Do not edit: run pmcp generate --lang rust.`;
}

/** Rust's names: a method in snake_case, a module that must not shadow the prelude types its code names. */
const RUST_NAMES: LanguageNames = {
  reserved: RUST_RESERVED,
  reservedMethods: ["new"],
  methodName: (tool) => rustFieldName(tool, "tool"),
  // Not for rustc, which holds any nesting (each inline object is a struct of its own): so that a part
  // has the same name in both languages' clients of one bundle.
  nameEvery: 8,
};

function renderServer(server: BundleServer, options: RenderOptions): { content: string; warnings: GenerateWarning[] } {
  const plan = planServer(server, RUST_NAMES, options.minQuality ?? DEFAULT_MIN_QUALITY);
  const warnings = [...plan.warnings];
  const warn = (tool: string, pointer: string, message: string) => warnings.push({ server: server.id, tool, pointer, message });
  const items = new RustItems(plan.scope, plan.definitions);
  const methodCode = plan.tools.map((planned) => {
    const { tool, output, input, resultNode } = planned;
    const argsDoc = [`Arguments of the \`${tool.name}\` tool.`];
    if (input.kind === "unknown") items.declareArgs(planned.args, { kind: "object", properties: [], additional: true }, argsDoc);
    else items.declareArgs(planned.args, input, argsDoc);
    for (const message of items.takeWarnings()) warn(tool.name, "/inputSchema", message);
    if (resultNode !== undefined && output !== undefined) items.declare(planned.result, resultNode, resultDoc(tool, output));
    for (const message of items.takeWarnings()) warn(tool.name, output?.pointer ?? "", message);
    return method(planned);
  });
  for (const definition of plan.definitions) {
    items.declareDefinition(definition);
    for (const message of items.takeWarnings()) warn("", "", message);
  }

  const code = [
    `${banner(options, server)}\n`,
    items.code(),
    `${rustDoc(plan.classDoc.join("\n"))}pub struct ${plan.className}<'a, C: super::CompositionClient> {\n    client: &'a C,\n}\n`,
    `impl<'a, C: super::CompositionClient> ${plan.className}<'a, C> {\n` +
      `    /// The server's id in the bundle, as \`call_tool\` receives it.\n    pub const SERVER: &'static str = ${rustString(server.id)};\n\n` +
      `    pub fn new(client: &'a C) -> Self {\n        Self { client }\n    }\n${methodCode.join("")}}\n`,
  ];
  return { content: withRecord(code.join("\n"), typeDigests(plan, "super::CallResult")), warnings };
}

/**
 * A tool's method. What it returns and how it reads the `CallResult` follows TypeScript's `returnType`
 * (codegen/plan.ts): the declared type exactly, `Parsed<T>` for a type learned from observations (a
 * misfit passed on, as `rt.ParsedResult` does), the result as it came without a type.
 */
function method({ tool, method: name, args, resultNode, result: resultName, learned, nonObject }: PlannedTool): string {
  const result = resultNode === undefined ? undefined : resultName;
  const doc = [
    ...(tool.title ? [tool.title] : []),
    ...(tool.description ? [...(tool.title ? [""] : []), tool.description] : []),
    ...(tool.title || tool.description ? [""] : []),
    `Calls the \`${tool.name}\` tool.`,
    ...(result === undefined ? ["The tool declares no output schema: the result is returned as the server sent it."] : []),
  ];
  const returned = result === undefined ? "super::CallResult" : learned ? `super::Parsed<${result}>` : result;
  const read =
    result === undefined
      ? "Ok(result)"
      : learned
        ? "Ok(super::learned(result))"
        : `super::declared(result.into_json()${nonObject ? ".map(super::unwrap_result)" : ""})`;
  return `
${rustDoc(doc.join("\n"), "    ")}    pub async fn ${name}(&self, args: ${args}) -> Result<${returned}, super::CompositionError> {
        let args = serde_json::to_value(args).map_err(super::CompositionError::Encode)?;
        let result = self.client.call_tool(Self::SERVER, ${rustString(tool.name)}, args).await?;
        ${read}
    }
`;
}

function resultDoc(tool: Tool, output: ResultSchema): string[] {
  const description = (output.schema as { description?: unknown }).description;
  const origin =
    output.inferred === undefined
      ? "declared by the server"
      : `inferred from observations (quality ${output.inferred.quality}): a result that does not fit is \`Parsed::Untyped\`, not an error`;
  return [`Result of the \`${tool.name}\` tool, ${origin}.`, ...(typeof description === "string" ? ["", description] : [])];
}

/**
 * `mod.rs`'s first item, for itself and every server module under it: a crate calls some of the
 * tools, and what it leaves uncalled (types, methods, clients, the error's variants) is not dead code of its own.
 */
const MOD_ATTRIBUTES =
  "// A crate calls the tools it needs: the generated items it leaves unused are not its dead code.\n#![allow(dead_code)]\n\n";

/**
 * `mod.rs` after its `pub mod` lines: what every client uses, since no published crate provides it.
 * `CallResult::into_json` repeats the runtime's rules for a result's JSON (`resultJson`, `blocksOf` in
 * packages/runtime/src/call-result.ts), as code mode's guest prelude does: a change there is made here too.
 */
const MOD_RS = `/// What a generated client method returns when the call fails, or its result does not fit the type its server declared.
#[derive(Debug)]
pub enum CompositionError {
    /// The call failed: transport, protocol or server (the client's message).
    Call(String),
    /// The tool answered with \`isError: true\`: its content, as sent.
    Tool(serde_json::Value),
    /// The arguments could not be written as JSON.
    Encode(serde_json::Error),
    /// The result does not fit the type the server declared, or holds no JSON.
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

/// A tool's result as the server sent it (but \`isError: true\`, which is \`CompositionError::Tool\`):
/// what \`call_tool\` returns, and what a method of a tool that declares no output schema returns.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The result's \`structuredContent\`, when it has one (any JSON value since protocol 2026-07-28).
    pub structured_content: Option<serde_json::Value>,
    /// The result's \`content\` blocks as sent, a JSON array (anything else counts as no blocks).
    pub content: serde_json::Value,
}

impl CallResult {
    /// The result's JSON: \`structuredContent\`, else its first text block parsed as JSON (how tools
    /// without an output schema answer); the result itself when it holds none (prose, images, links).
    /// A text block is an object whose \`type\` is \`"text"\` and whose \`text\` is a string; anything else
    /// in \`content\` is skipped. These are the TypeScript client's rules (\`resultJson\` and \`blocksOf\`
    /// in @pmcp-codegen/runtime), read with serde_json's limits (fewer than 128 levels of nesting).
    pub fn into_json(self) -> Result<serde_json::Value, CallResult> {
        if let Some(structured) = self.structured_content {
            return Ok(structured);
        }
        let text = self.content.as_array().and_then(|blocks| {
            blocks.iter().find_map(|block| {
                let block = block.as_object()?;
                if block.get("type")? != "text" {
                    return None;
                }
                block.get("text")?.as_str()
            })
        });
        match text.map(serde_json::from_str) {
            Some(Ok(value)) => Ok(value),
            _ => Err(self),
        }
    }
}

/// What the method of a tool typed by learning returns: the type was inferred from the results
/// observed so far, not declared by the server, so a result that does not fit it is passed on as it
/// came, never an error (the TypeScript client's \`rt.ParsedResult<T>\`).
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed<T> {
    /// The result's JSON (see \`CallResult::into_json\`), read as the learned type.
    Typed(T),
    /// The result's JSON, which the learned type does not fit.
    Untyped(serde_json::Value),
    /// A result that holds no JSON (prose, images, links): its \`content\` blocks, as sent.
    Content(serde_json::Value),
}

/// Calls a tool: implement it over any MCP client (PMCP's, rmcp's). Return the result's
/// \`structuredContent\` and \`content\` as a \`CallResult\`, \`CompositionError::Tool\` for \`isError\`,
/// \`CompositionError::Call\` for a failed call.
///
/// A plain \`async fn\`: any implementation fits, \`Send\` or not, so a caller cannot require the
/// futures to be \`Send\` (to \`tokio::spawn\` them) through this trait.
#[allow(async_fn_in_trait)]
pub trait CompositionClient {
    async fn call_tool(&self, server: &str, tool: &str, args: serde_json::Value) -> Result<CallResult, CompositionError>;
}

/// A result read as the type its server declared: one that does not fit, or holds no JSON, is \`Decode\`.
#[doc(hidden)]
pub fn declared<T: serde::de::DeserializeOwned>(json: Result<serde_json::Value, CallResult>) -> Result<T, CompositionError> {
    let value = json.map_err(|_| {
        CompositionError::Decode(serde::de::Error::custom("the result holds no JSON: no structuredContent, and no text block of JSON"))
    })?;
    serde_json::from_value(value).map_err(CompositionError::Decode)
}

/// A result read as a type learned from observations: what does not fit is passed on untyped.
#[doc(hidden)]
pub fn learned<T: serde::de::DeserializeOwned>(result: CallResult) -> Parsed<T> {
    match result.into_json() {
        Ok(value) => match T::deserialize(&value) {
            Ok(typed) => Parsed::Typed(typed),
            Err(_) => Parsed::Untyped(value),
        },
        Err(result) => Parsed::Content(result.content),
    }
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
