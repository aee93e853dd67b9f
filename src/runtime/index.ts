/**
 * pmcp-codegen/runtime: the runtime of generated clients, kept for code generated before it
 * became its own package. It re-exports @pmcp-codegen/runtime, so its classes are the same
 * ones (an `instanceof` holds across both names).
 */

export type {
  CallOptions,
  CompositionClientOptions,
  JsonValue,
  ObservationHeader,
  ObservationLog,
  Observed,
  ObserveOptions,
  ResultCall,
  Sample,
  ServerEntry,
  ToolCall,
  WithResult,
} from "@pmcp-codegen/runtime";
export {
  CompositionCallError,
  CompositionClient,
  CompositionError,
  ConfigurationError,
  ConnectionError,
  format,
  InvalidResponseError,
  isOneOfValues,
  JsonValueSchema,
  jsonEquals,
  maxCodePoints,
  minCodePoints,
  multipleOf,
  ObservationRecorder,
  OutputValidationError,
  observationPath,
  oneOf,
  otherKeysMatch,
  ParsedResult,
  parseObservationLog,
  propertyCount,
  redactValue,
  ServerNotFoundError,
  TimeoutError,
  ToolCallError,
  ToolResult,
  TransportError,
  uniqueItems,
} from "@pmcp-codegen/runtime";
