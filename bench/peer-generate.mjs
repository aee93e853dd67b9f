// The peer of `pmcp generate` as a whole process: json-schema-to-typescript (types) plus
// json-schema-to-zod after dereferencing (parsers) over every input and output schema of a bundle.
import { readFileSync } from "node:fs";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { compile } from "json-schema-to-typescript";
import { jsonSchemaToZod } from "json-schema-to-zod";

const bundle = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const server of bundle.servers) {
  for (const tool of server.tools) {
    for (const [schema, suffix] of [
      [tool.inputSchema, "Args"],
      [tool.outputSchema, "Result"],
    ]) {
      if (schema === undefined) continue;
      // A schema either peer cannot handle (a dangling $ref, say) costs its time and is skipped, as a user would.
      try {
        await compile(structuredClone(schema), `${tool.name}${suffix}`, { bannerComment: "", format: false });
        jsonSchemaToZod(await $RefParser.dereference(structuredClone(schema)));
      } catch {}
    }
  }
}
