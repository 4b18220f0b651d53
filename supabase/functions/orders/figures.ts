/**
 * The orders a business-health figure counts, as of `as_of`: `counted` (revenue, counted orders and the
 * average: not refunded, not cancelled by then), `completed` and `cancelled` (by then), and `refunded` (not
 * cancelled by then, refunded: neither counted nor cancelled). Every order placed is exactly one of
 * counted, cancelled and refunded.
 * Read by the schema that accepts it and by the console that links each figure to its orders.
 */
export const ORDER_FIGURES = ['counted', 'completed', 'cancelled', 'refunded'] as const;
