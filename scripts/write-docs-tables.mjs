// `npm run docs`: writes the generated tables of README.md and docs/ between their markers
// (`<!-- flags: pmcp schema export -->` … `<!-- /generated -->`, `<!-- config keys -->`) from the
// CLI's own declarations, as built into dist/ (`npm run emit` first); test/unit/docs-tables.test.ts checks them.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { docsTables, withDocsTables } from "../dist/cli/docs-tables.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"), { recursive: true })
    .filter((path) => path.endsWith(".md"))
    .map((path) => join("docs", path)),
];
const tables = docsTables();
for (const page of pages) {
  const path = join(ROOT, page);
  const text = readFileSync(path, "utf8");
  const made = withDocsTables(text, tables);
  if (made === text) continue;
  writeFileSync(path, made);
  console.log(`wrote the tables of ${page}`);
}
