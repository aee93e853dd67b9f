// Bundles code mode's guest prelude after tsc's emit, for npm run build and npm run emit: dist/exec/guest/prelude.js
// and the runtime's content-block rules it imports, as one script a sandbox VM evaluates to the prelude function
// (dist/exec/guest/prelude.vm.js, read by the sandbox's worker). The VM has no modules, and the script leaves no
// global behind: the program sees only the globals the prelude makes.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const GUEST = fileURLToPath(new URL("../dist/exec/guest/", import.meta.url));

const { output } = await build({
  input: `${GUEST}prelude.js`,
  platform: "neutral",
  write: false,
  output: { format: "iife", name: "guest" },
});
const [chunk] = output;
if (output.length !== 1 || chunk?.type !== "chunk") throw new Error(`the guest prelude bundled into ${output.length} files, not one`);
if (chunk.imports.length > 0 || chunk.dynamicImports.length > 0)
  throw new Error(`the guest prelude loads ${[...chunk.imports, ...chunk.dynamicImports].join(", ")}, and a sandbox VM has no modules`);
writeFileSync(`${GUEST}prelude.vm.js`, `(function () {\n"use strict";\n${chunk.code}\nreturn guest.guestPrelude;\n})()\n`);
