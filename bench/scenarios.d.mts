export function adjustment(
  n: number,
  productIds: string[],
): { product_id: string; adjust_quantity: number; reason: string };
export function searchTerm(n: number): string;
export function deliveryLines(n: number, productIds: string[], today: string): {
  product_id: string;
  quantity: number;
  lot_number: string;
  expires_on: string;
}[];
export function orderSearchTerm(n: number): string;
export const ORDER_LIST_PRESETS: [string, string][];
export function orderListQuery(
  preset: string,
  orderWindows: Record<string, { ordered_from: string; ordered_before: string }>,
): string;
export function yearOfDays(today: string): { from: string; to: string };
