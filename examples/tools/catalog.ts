/**
 * A warehouse catalogue as plain async functions and classes: `pmcp tools from-source` turns each
 * exported async function, and each async method of an exported class, into an MCP tool (JSDoc for
 * descriptions, hints, tags and constraints, types for schemas), and `registerFunctions` serves
 * them. State is in memory; the example is about the signatures.
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
 * @category stock
 * @phase basic
 * @popularity 9
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
 * @category catalogue
 * @phase basic
 * @popularity 7
 */
export const listProducts = async (args: { category?: Category; limit?: number | null }): Promise<{ products: Product[] }> => {
  const matching = [...products.values()].filter((product) => args.category === undefined || product.category === args.category);
  return { products: args.limit === undefined || args.limit === null ? matching : matching.slice(0, args.limit) };
};

/**
 * Searches product names and tags, case-insensitively.
 * @param query Words to look for.
 * @param limit At most this many products.
 * @param inStockOnly Leave out products no warehouse holds.
 * @returns The matching products, in catalogue order.
 * @readOnly
 * @category catalogue
 * @phase basic
 * @popularity 10
 */
export async function searchProducts(
  /** @minLength 1 */ query: string,
  /**
   * @minimum 1
   * @maximum 50
   */
  limit = 10,
  inStockOnly = false,
): Promise<{ products: Product[] }> {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = [...products.values()].filter((product) => {
    const text = [product.name, ...product.tags].join(" ").toLowerCase();
    return words.every((word) => text.includes(word)) && (!inStockOnly || totalOf(stock.get(product.sku) ?? {}) > 0);
  });
  return { products: matches.slice(0, limit) };
}

/**
 * Orders more units of a product from its supplier.
 * @openWorld
 * @category orders
 * @popularity 5
 * @rateLimit supplier
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
 * @category catalogue
 * @popularity 1
 */
export async function discontinueProduct(args: { sku: string }): Promise<void> {
  requireProduct(args.sku);
  const held = totalOf(stock.get(args.sku) ?? {});
  if (held > 0) throw new Error(`${args.sku} still has ${held} units in stock`);
  products.delete(args.sku);
}

export interface Quote {
  sku: string;
  quantity: number;
  supplier: string;
  /** Price of the whole quantity, in cents. */
  totalCents: number;
  leadDays: number;
}

/**
 * The suppliers' side, as a class: each async method is a tool, run by one instance that the
 * exported factory `createSuppliers()` builds (it would open the suppliers' API session).
 */
export class Suppliers {
  constructor(private readonly prices: ReadonlyMap<string, { supplier: string; unitCents: number; leadDays: number }>) {}

  /**
   * Asks the product's supplier for a price; the supplier's API allows few calls, shared with placing orders.
   * @param sku The product to quote.
   * @param quantity How many units.
   * @readOnly
   * @openWorld
   * @category orders
   * @popularity 4
   * @rateLimit supplier
   */
  async quoteRestock(sku: string, /** @minimum 1 */ quantity = 10): Promise<Quote> {
    requireProduct(sku);
    const price = this.prices.get(sku);
    if (price === undefined) throw new Error(`no supplier sells ${sku}`);
    return { sku, quantity, supplier: price.supplier, totalCents: price.unitCents * quantity, leadDays: price.leadDays };
  }

  /**
   * Who supplies a product.
   * @readOnly
   * @category orders
   * @popularity 2
   */
  async supplierOf(sku: string): Promise<{ sku: string; supplier: string | null }> {
    requireProduct(sku);
    return { sku, supplier: this.prices.get(sku)?.supplier ?? null };
  }
}

/** Builds the one Suppliers instance the tools run on: a class whose constructor takes arguments needs a factory. */
export async function createSuppliers(): Promise<Suppliers> {
  return new Suppliers(
    new Map([
      ["HAM-001", { supplier: "Forge & Sons", unitCents: 1250, leadDays: 5 }],
      ["POT-010", { supplier: "Clayworks", unitCents: 800, leadDays: 12 }],
    ]),
  );
}

/** Reports over the stock, as a class constructed with no arguments. */
export class Reports {
  /**
   * Products whose total stock is at or below a threshold, lowest first.
   * @param threshold Units at or below which a product counts as low.
   * @readOnly
   * @category reports
   * @popularity 3
   */
  async lowStock(/** @minimum 0 */ threshold = 5): Promise<{ items: { sku: string; total: number }[] }> {
    const items = [...products.keys()]
      .map((sku) => ({ sku, total: totalOf(stock.get(sku) ?? {}) }))
      .filter((item) => item.total <= threshold)
      .sort((a, b) => a.total - b.total);
    return { items };
  }

  /**
   * How many catalogue products each category holds.
   * @readOnly
   * @category reports
   */
  async categoryCounts(): Promise<{ counts: Record<string, number> }> {
    const counts: Record<string, number> = {};
    for (const product of products.values()) counts[product.category] = (counts[product.category] ?? 0) + 1;
    return { counts };
  }
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
