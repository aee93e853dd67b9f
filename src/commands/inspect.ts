import { jsonText } from "../bundle/serialize.js";
import { toolTagsText } from "../bundle/tool-tags.js";
import type { Bundle } from "../bundle/types.js";
import { readSchemaFiles } from "../bundle-files/read.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { inspectTool, serversWithTool, type ToolInspection } from "../inspect/describe-tool.js";
import type { CommandArgs } from "./shared/command.js";
import { resolveInputs } from "./shared/inputs.js";
import { printable, printJson, say } from "./shared/output.js";

/** `pmcp inspect <server/tool>`: a tool's description, schemas and generated result type. */
export async function inspect(args: CommandArgs<"inspect">): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const { bundle } = await readSchemaFiles(schema);
  const outcome = inspectTool(bundle, qualifiedName(bundle, args.tool, serversWithTool));
  if (!outcome.found) throw new PmcpError("TOOL_NOT_FOUND", outcome.message);
  if (args.json) return printJson(outcome.inspection);
  say(args, formatInspection(outcome.inspection));
}

/** `server/tool` as given; a bare tool name only when exactly one server has it, since a guess could show the wrong tool. */
function qualifiedName(bundle: Bundle, tool: string, serversWithTool: (bundle: Bundle, tool: string) => string[]): string {
  if (tool.includes("/")) return tool;
  const servers = serversWithTool(bundle, tool);
  if (servers.length === 1) return `${servers[0]}/${tool}`;
  const why = servers.length === 0 ? "no server has a tool of that name" : `servers ${servers.join(", ")} each have one`;
  throw new PmcpError("INVALID_ARGUMENT", `"${tool}": name the tool as server/tool (${why})`);
}
/** The inspection as labelled sections; schemas stay pretty JSON so they can be copied as they are. */
export function formatInspection(inspection: ToolInspection): string {
  const json = (value: unknown) => jsonText(value, 2);
  const sections = [
    [printable(inspection.name), ...(inspection.description === "" ? [] : [printable(inspection.description)])].join("\n"),
    `"inputSchema": ${json(inspection.inputSchema)}`,
    inspection.note === undefined ? `"outputSchema": ${json(inspection.outputSchema)}` : `"outputSchema": null\nNote: ${inspection.note}`,
    ...(inspection.inferredOutputSchema === undefined
      ? []
      : [
          `Inferred from ${count(inspection.inferredOutputSchema.observations, "observed result")} (quality ${inspection.inferredOutputSchema.quality}), not declared by the server:\n` +
            json(inspection.inferredOutputSchema.schema),
        ]),
    ...(inspection.observedContent === undefined
      ? []
      : [
          `Observed answering without JSON, in results holding: ${Object.entries(inspection.observedContent)
            .map(([kind, results]) => `${printable(kind)} (${results})`)
            .join(", ")}`,
        ]),
    ...(inspection.task === undefined ? [] : [`Task: ${inspection.task}`]),
    ...(inspection.tags === undefined ? [] : [`Tags: ${printable(toolTagsText(inspection.tags))}`]),
    `Result type (source ${inspection.source}, quality ${inspection.quality}):\n${inspection.resultType}`,
  ];
  return sections.join("\n\n");
}
