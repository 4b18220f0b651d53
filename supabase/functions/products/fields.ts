/**
 * A product's field rules, the figures the database's own rules hold (private.is_product_sku, is_product_name
 * and is_reorder_level, asked by the products table's CHECKs; test/database/products.test.ts holds these to
 * them): the zod schemas (schemas.ts) and the console's product form read them here. No zod in this module,
 * so the console takes the figures without the library.
 */
import { Limits } from '../_shared/database.types.ts';

export const SKU_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const MAX_SKU_LENGTH = 64;
/** Counted without the surrounding spaces, which the writes trim. */
export const MAX_NAME_LENGTH = 200;
export const MAX_REORDER_LEVEL = Limits.stock_quantity;
