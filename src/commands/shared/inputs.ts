import { DEFAULT_BUNDLE_PATH } from "../../bundle/defaults.js";
import { type LoadedConfig, loadPmcpConfig } from "../../config/pmcp-config.js";
import { SCHEMA } from "./flags.js";
import { settingOf } from "./settings.js";

export interface Inputs {
  /** The loaded `pmcp.config.*`, if there is one and it was needed. */
  project: LoadedConfig | undefined;
  /** The bundle (or PMCP schema files) the command reads. */
  schema: string[];
}

/** The bundle a command reads: `--schema`, else `pmcp.config`'s `bundle`, else the default (settingOf's order). */
export async function resolveInputs(schema: readonly string[], options: { project?: "always" } = {}): Promise<Inputs> {
  // A command told its inputs has no business with pmcp.config unless it reads more from it.
  if (schema.length > 0 && options.project !== "always") return { project: undefined, schema: [...schema] };
  const project = await loadPmcpConfig();
  const bundle = settingOf(SCHEMA, undefined, project, DEFAULT_BUNDLE_PATH);
  return { project, schema: schema.length > 0 ? [...schema] : [bundle.value] };
}
