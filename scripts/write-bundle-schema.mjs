// Regenerates schemas/bundle.schema.json from the zod schema in src/bundle/types.ts (run after `npm run build`).
import { writeFile } from "node:fs/promises";
import { bundleJsonSchema } from "../dist/bundle/json-schema.js";
import { toJsonText } from "../dist/bundle/serialize.js";

await writeFile(new URL("../schemas/bundle.schema.json", import.meta.url), toJsonText(bundleJsonSchema()));
