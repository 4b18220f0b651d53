// The health rollups as kept (every order change folded) and as rebuilt from every order, for the tests that
// hold them equal after concurrent writes. Run on a database of the test's own: the rebuild truncates the
// kept rows (rolled back).
import type postgres from 'postgres';

/** Every customer's kept states. */
const scoresOf = (db: postgres.Sql | postgres.TransactionSql) => db`
  select customer_id, changed_at::text as changed_at, states::text as states from private.customer_scores
  where cardinality(changed_at) > 0 order by customer_id`;

/** The kept changes by window length and hour, and by 10 minutes, where any is not zero. */
const figureSums = (db: postgres.Sql | postgres.TransactionSql) => db`
  select grain, days, at, sum(orders) o, sum(completed) c, sum(cancelled) x, sum(due) d, sum(on_time) t,
         sum(revenue)::numeric(20, 2)::text r, sum(previous_revenue)::numeric(20, 2)::text p, sum(customers) n, sum(score_sum) s,
         sum(scores_1_mod_3) s1, sum(scores_2_mod_3) s2, sum(scores_of_3) s3, sum(repeat_customers) rc
  from (select 'hour' as grain, hour as at, * from private.health_figure_changes
        union all
        select '10 minutes', ten_minutes, * from private.health_figure_changes_by_10_minutes) f
  group by grain, days, at
  having sum(orders) <> 0 or sum(completed) <> 0 or sum(cancelled) <> 0 or sum(due) <> 0 or sum(on_time) <> 0
      or sum(revenue) <> 0 or sum(previous_revenue) <> 0 or sum(customers) <> 0 or sum(score_sum) <> 0
      or sum(scores_1_mod_3) <> 0 or sum(scores_2_mod_3) <> 0 or sum(scores_of_3) <> 0 or sum(repeat_customers) <> 0
  order by grain, days, at`;

/**
 * The kept changes and every customer's kept states, once every order change is folded; and the same built
 * from scratch from every order (private.refold_all_orders).
 */
export async function keptAndRebuilt(db: postgres.Sql | postgres.TransactionSql) {
  await db`select private.fold_order_changes(true)`;
  const kept = await figureSums(db);
  const keptScores = await scoresOf(db);
  const rebuilt = await db.begin(async (tx) => {
    await tx`select private.refold_all_orders()`;
    const rows = await figureSums(tx);
    throw new Rebuilt([...rows, ...(await scoresOf(tx))].map((row) => ({ ...row })));
  }).catch((error) => {
    if (error instanceof Rebuilt) return error.rows;
    throw error;
  });
  return { kept: [...kept, ...keptScores].map((row) => ({ ...row })), rebuilt };
}

/**
 * Each store day's revenue as `relation` holds it (the kept days, or the days as attribution reads them with
 * the changes not yet folded) and as the orders give it (private.counts_as_revenue), for the days before
 * `before`.
 */
export async function keptAndRecomputedRevenue(
  db: postgres.Sql | postgres.TransactionSql,
  relation: 'private.order_daily_revenue' | 'private.order_daily_revenue_now',
  before = 'infinity',
) {
  const [row] = await db`
    select (select coalesce(jsonb_object_agg(r.order_date, r.revenue), '{}')
            from ${db(relation)} r where r.order_date < ${before}::text::date and r.revenue <> 0) as kept,
           (select coalesce(jsonb_object_agg(o.order_date, o.revenue), '{}')
            from (select order_date, sum(total_amount) as revenue from public.orders
                  where order_date < ${before}::text::date and private.counts_as_revenue(counted_until) group by 1) o
            where o.revenue <> 0) as recomputed`;
  return row as { kept: Record<string, number>; recomputed: Record<string, number> };
}

/** Rows of one list missing from the other, as text: empty when both hold the same rows. */
export function differences(kept: postgres.Row[], rebuilt: postgres.Row[]) {
  const text = (rows: postgres.Row[]) => rows.map((row) => JSON.stringify(row));
  const [a, b] = [new Set(text(kept)), new Set(text(rebuilt))];
  return [...[...a].filter((row) => !b.has(row)).map((row) => `kept only: ${row}`),
          ...[...b].filter((row) => !a.has(row)).map((row) => `rebuilt only: ${row}`)];
}

class Rebuilt extends Error {
  constructor(readonly rows: postgres.Row[]) {
    super('rolled back');
  }
}

