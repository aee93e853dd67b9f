import type { Schema } from "../../src/normalize/passes.js";

/** Twelve definitions, each referring to the next four (OneNote's notebook, section, page, user…). */
export function mutuallyRecursive(count = 12): Schema {
  const name = (index: number) => `def${index % count}`;
  const $defs = Object.fromEntries(
    Array.from({ length: count }, (_, index) => [
      name(index),
      {
        type: "object",
        properties: {
          id: { type: "string" },
          displayName: { type: ["string", "null"] },
          parent: { anyOf: [{ $ref: `#/$defs/${name(index + 1)}` }, { type: "null" }] },
          children: { type: "array", items: { $ref: `#/$defs/${name(index + 2)}` } },
          owner: { $ref: `#/$defs/${name(index + 3)}` },
          links: { type: "array", items: { $ref: `#/$defs/${name(index + 4)}` } },
        },
      },
    ]),
  );
  return { type: "object", properties: { body: { $ref: "#/$defs/def0" } }, required: ["body"], $defs };
}
