// `npm run docs`: writes the flag tables of README.md and docs/ between their markers
// (`<!-- flags: pmcp schema export -->` … `<!-- /flags -->`) from the CLI's own declarations, as
// built into dist/ (`npm run emit` first); test/unit/docs-flag-tables.test.ts checks them.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { flagTables, withFlagTables } from "../dist/cli/flag-tables.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true })
    .filter((path) => path.endsWith(".md"))
    .map((path) => join("docs", path)),
];
const tables = flagTables();
for (const page of pages) {
  const path = join(ROOT, page);
  const text = readFileSync(path, "utf8");
  const made = withFlagTables(text, tables);
  if (made === text) continue;
  writeFileSync(path, made);
  console.log(`wrote the flag tables of ${page}`);
}
