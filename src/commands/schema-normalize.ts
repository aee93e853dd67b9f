import { readSchemaFiles } from "../bundle/read.js";
import { canonicalBundle, toJsonText } from "../bundle/serialize.js";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import type { Bundle } from "../bundle/types.js";
import { normalizeSchemaWithNotes, type Profile } from "../normalize/normalize.js";
import { writeFilesAtomically } from "@pmcp-codegen/runtime/internal";
import { count, say, warn, type OutputOptions } from "../cli/output.js";

export interface SchemaNormalizeArgs extends OutputOptions {
  profile: Profile;
  bundle: string | undefined;
  output: string | undefined;
}

/** `pmcp schema normalize`: the bundle with every input and output schema rewritten for a provider. */
export async function schemaNormalize(args: SchemaNormalizeArgs): Promise<void> {
  const { bundle } = await readSchemaFiles([args.bundle ?? DEFAULT_BUNDLE_PATH]);
  let notes = 0;
  const normalized: Bundle = canonicalBundle(
    bundle.servers.map((server) => ({
      ...server,
      tools: server.tools.map((tool) => {
        const next = { ...tool };
        for (const key of ["inputSchema", "outputSchema"] as const) {
          if (tool[key] === undefined) continue;
          const result = normalizeSchemaWithNotes(tool[key], { profile: args.profile });
          next[key] = result.schema;
          for (const note of result.notes) {
            notes++;
            warn(args, `server "${server.id}" tool "${tool.name}" at /${key}${note.pointer === "/" ? "" : note.pointer}: ${note.message}`);
          }
        }
        return next;
      }),
    })),
  );
  const text = toJsonText(normalized);
  if (args.output === undefined) {
    process.stdout.write(text);
    return;
  }
  await writeFilesAtomically([{ path: args.output, content: text }]);
  say(args, `Wrote ${args.output} for ${args.profile}${notes ? ` (${count(notes, "note")})` : ""}`);
}
