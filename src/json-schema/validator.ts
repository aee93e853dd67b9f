import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv, type Options } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isDraft07OrOlder } from "./dialect.js";

export type { ErrorObject, ValidateFunction };

const OPTIONS: Options = { strict: false, allErrors: true, logger: false, validateFormats: true };

/**
 * One Ajv per dialect, made on first use: building one, with its formats, costs more than
 * compiling most tool schemas.
 */
const instances = new Map<"draft-07" | "2020-12", Ajv>();

function ajvFor(dialect: "draft-07" | "2020-12"): Ajv {
  let ajv = instances.get(dialect);
  if (ajv === undefined) {
    ajv = dialect === "draft-07" ? new Ajv(OPTIONS) : new Ajv2020(OPTIONS);
    addFormats.default(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The `format` names validation checks; any other format passes every string unchecked. */
export function knownFormats(): string[] {
  return Object.keys(ajvFor("2020-12").formats).sort();
}

/**
 * Validators by schema object: a tool's schema is compiled once however many parts of a run ask
 * (restoring a model's arguments, sampling, serving). Schemas are never changed after they are read.
 */
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * A validator for one JSON Schema, in its own dialect: draft-07 and older by `$schema`,
 * else 2020-12 (MCP's default). Remote `$ref`s are never fetched; such a schema fails to compile.
 */
export function compileSchema(schema: unknown): ValidateFunction {
  const known = typeof schema === "object" && schema !== null ? compiled.get(schema) : undefined;
  if (known !== undefined) return known;
  const ajv = ajvFor(isDraft07OrOlder(schema) ? "draft-07" : "2020-12");
  try {
    const validate = ajv.compile(schema as object);
    if (typeof schema === "object" && schema !== null) compiled.set(schema, validate);
    return validate;
  } finally {
    // The validator keeps what it needs. Forgetting the schema lets another with the same `$id`
    // compile (a tool listed again, a normalized copy) and a long session not hold every schema.
    if (typeof schema === "object" && schema !== null) ajv.removeSchema(schema);
  }
}
