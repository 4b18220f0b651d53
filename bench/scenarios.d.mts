export function adjustment(n: number, productIds: string[]): { product_id: string; adjust_quantity: number; reason: string };
export function searchTerm(n: number): string;
