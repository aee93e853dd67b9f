/**
 * @pmcp-codegen/runtime/parsers: what generated parsers call where zod's built-ins mean something
 * else than JSON Schema, and a schema's patterns, matched in linear time. Generated modules import it
 * beside the runtime's root; an application has no business with it, and its API promises only what
 * generated code of the same version needs.
 */

export type { Pattern } from "./pattern.js";
export { matches, pattern } from "./pattern.js";
export type { Evaluation, EvaluationBranch } from "./schema-helpers.js";
export {
  allOf,
  conditional,
  contains,
  dependentRequired,
  dependentSchema,
  format,
  isOneOfValues,
  JsonValueSchema,
  maxCodePoints,
  maxItems,
  minCodePoints,
  minItems,
  multipleOf,
  not,
  oneOf,
  otherKeysMatch,
  ownProperties,
  propertyCount,
  propertyNames,
  protoProperty,
  unevaluatedItems,
  unevaluatedProperties,
  uniqueItems,
} from "./schema-helpers.js";
