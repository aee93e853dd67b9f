import { describe, expect, it } from "vitest";
import { fieldConsistency, fieldConsistencyText, lowConsistencyFields } from "../../src/bundle/field-consistency.js";

describe("field consistency", () => {
  it("is the share of non-null values of the most common type, integer and number counted as one", () => {
    const price = { path: "/items/*/price", presence: 1, types: { integer: 5, null: 4, number: 6, string: 9 } };
    expect(fieldConsistency(price)).toEqual({
      path: "/items/*/price",
      consistency: 11 / 20,
      types: [
        ["number", 11],
        ["string", 9],
      ],
    });
    expect(fieldConsistency({ path: "/gone", presence: 0.5, types: { null: 3 } })).toBeUndefined();
    expect(fieldConsistency({ path: "/none", presence: 0, types: {} })).toBeUndefined();
  });

  it("names the fields below 0.7 in pointer order, its share rounded down", () => {
    const fields = [
      { path: "", types: { object: 10 } },
      { path: "/a", presence: 1, types: { boolean: 3, string: 7 } },
      { path: "/b", presence: 1, types: { boolean: 31, string: 69 } },
      { path: "/c", presence: 1, types: { array: 1, boolean: 1, object: 1 } },
    ];
    expect(lowConsistencyFields({ fields }).map(fieldConsistencyText)).toEqual([
      "/b 69 % (string 69, boolean 31)",
      "/c 33 % (array 1, boolean 1, object 1)",
    ]);
    expect(
      fieldConsistencyText({
        path: "",
        consistency: 0.5,
        types: [
          ["array", 1],
          ["object", 1],
        ],
      }),
    ).toBe("(the result) 50 % (array 1, object 1)");
  });
});
