/**
 * pmcp-codegen/runtime: the runtime of generated clients, kept for code generated before it
 * became its own package. It re-exports @pmcp-codegen/runtime, so its classes are the same
 * ones (an `instanceof` holds across both names).
 */
export {
  CompositionCallError,
  CompositionClient,
  CompositionError,
  ConfigurationError,
  ConnectionError,
  InvalidResponseError,
  JsonValueSchema,
  ObservationRecorder,
  OutputValidationError,
  ServerNotFoundError,
  TimeoutError,
  ToolCallError,
  TransportError,
  format,
  isOneOfValues,
  jsonEquals,
  maxCodePoints,
  minCodePoints,
  multipleOf,
  observationPath,
  oneOf,
  otherKeysMatch,
  parseObservationLog,
  propertyCount,
  redactValue,
  uniqueItems,
} from "@pmcp-codegen/runtime";
export type {
  CallOptions,
  CompositionClientOptions,
  JsonValue,
  ObservationHeader,
  ObservationLog,
  ObserveOptions,
  Sample,
  ServerEntry,
  ToolCall,
} from "@pmcp-codegen/runtime";
