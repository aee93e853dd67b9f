/**
 * A warehouse catalogue as plain async functions: `pmcp tools from-source` turns each export
 * into an MCP tool (JSDoc for descriptions and hints, types for schemas), and
 * `registerFunctions` serves them. State is in memory; the example is about the signatures.
 */

export type Category = "tools" | "garden" | "kitchen";

export interface Dimensions {
  /** Width in centimetres. */
  widthCm: number;
  heightCm: number;
  depthCm: number;
}

export interface Product {
  /** Stock-keeping unit, e.g. "HAM-001". */
  sku: string;
  name: string;
  category: Category;
  dimensions: Dimensions;
  /** Null when the product has never been restocked. */
  lastRestocked: Date | null;
  tags: readonly string[];
}

export interface StockLevel {
  product: Product;
  /** Units on hand per warehouse code. */
  byWarehouse: Record<string, number>;
  total: number;
}

export interface OrderLine {
  warehouse: string;
  quantity: number;
}

export interface RestockOrder {
  sku: string;
  lines: OrderLine[];
  /** Earliest and latest acceptable delivery. */
  deliveryWindow: [earliest: Date, latest: Date];
  priority: "normal" | "urgent";
  note?: string | null;
}

export interface OrderReceipt {
  orderId: string;
  placedAt: Date;
  /** Days from the start of the delivery window to its end. */
  windowDays: number;
  unitsOrdered: number;
}

const products = new Map<string, Product>([
  [
    "HAM-001",
    {
      sku: "HAM-001",
      name: "Claw hammer",
      category: "tools",
      dimensions: { widthCm: 12, heightCm: 33, depthCm: 3 },
      lastRestocked: new Date("2026-10-01T08:00:00.000Z"),
      tags: ["steel", "bestseller"],
    },
  ],
  [
    "POT-010",
    {
      sku: "POT-010",
      name: "Terracotta pot",
      category: "garden",
      dimensions: { widthCm: 20, heightCm: 18, depthCm: 20 },
      lastRestocked: null,
      tags: [],
    },
  ],
]);

const stock = new Map<string, Record<string, number>>([
  ["HAM-001", { north: 12, south: 3 }],
  ["POT-010", {}],
]);

/**
 * Looks up one product and how many units each warehouse holds.
 * @param args.sku The product's SKU, e.g. "HAM-001".
 * @param warehouse Only count this warehouse.
 * @readOnly
 * @idempotent
 * @outputTypeName StockLevel
 */
export async function getStockLevel(args: { sku: string; warehouse?: string }): Promise<StockLevel> {
  const product = requireProduct(args.sku);
  const all = stock.get(args.sku) ?? {};
  const byWarehouse = args.warehouse === undefined ? all : { [args.warehouse]: all[args.warehouse] ?? 0 };
  return { product, byWarehouse, total: totalOf(byWarehouse) };
}

/**
 * Lists catalogue products, optionally of one category.
 * @param args.limit At most this many products; null for all.
 * @readOnly
 */
export const listProducts = async (args: { category?: Category; limit?: number | null }): Promise<{ products: Product[] }> => {
  const matching = [...products.values()].filter((product) => args.category === undefined || product.category === args.category);
  return { products: args.limit === undefined || args.limit === null ? matching : matching.slice(0, args.limit) };
};

/**
 * Orders more units of a product from its supplier.
 * @openWorld
 */
export async function placeRestockOrder(order: RestockOrder): Promise<OrderReceipt> {
  requireProduct(order.sku);
  const [earliest, latest] = order.deliveryWindow;
  return {
    orderId: `RO-${order.sku}-${order.lines.length}`,
    placedAt: new Date("2026-11-22T12:00:00.000Z"),
    windowDays: Math.round((latest.getTime() - earliest.getTime()) / 86_400_000),
    unitsOrdered: order.lines.reduce((sum, line) => sum + line.quantity, 0),
  };
}

/**
 * Removes a product from the catalogue; refuses while any warehouse still holds it.
 * @destructive
 * @idempotent
 */
export async function discontinueProduct(args: { sku: string }): Promise<void> {
  requireProduct(args.sku);
  const held = totalOf(stock.get(args.sku) ?? {});
  if (held > 0) throw new Error(`${args.sku} still has ${held} units in stock`);
  products.delete(args.sku);
}

function requireProduct(sku: string): Product {
  const product = products.get(sku);
  if (product === undefined) throw new Error(`unknown SKU ${sku}`);
  return product;
}

/** A helper, not a tool: it is not exported. */
function totalOf(levels: Record<string, number>): number {
  return Object.values(levels).reduce((sum, units) => sum + units, 0);
}
