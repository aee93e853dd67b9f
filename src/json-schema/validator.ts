import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv, type Options } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isDraft07OrOlder } from "./dialect.js";

export type { ErrorObject, ValidateFunction };

const OPTIONS: Options = { strict: false, allErrors: true, logger: false, validateFormats: true };

/**
 * A validator for one JSON Schema, in its own dialect: draft-07 and older by `$schema`,
 * else 2020-12 (MCP's default). Remote `$ref`s are never fetched; such a schema fails to compile.
 */
export function compileSchema(schema: unknown): ValidateFunction {
  const ajv = isDraft07OrOlder(schema) ? new Ajv(OPTIONS) : new Ajv2020(OPTIONS);
  addFormats.default(ajv);
  return ajv.compile(schema as object);
}
