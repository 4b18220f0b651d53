import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { Pager, SelectField } from '../components/form.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge, fmt } from '../format.tsx';
import { href, useParams, type Route } from '../router.ts';

type Query = NonNullable<paths['/orders']['get']['parameters']['query']>;
type Status = NonNullable<Query['status']>;
const STATUSES: Status[] = ['pending', 'paid', 'shipped', 'delivered', 'completed', 'cancelled', 'refunded'];
const PAGE_SIZE = 50;

/**
 * The orders behind the figures, read-only: the window, moment and status come from the URL, so a figure
 * on the health screen links to exactly the orders it counts, and its summary counts them the same way.
 */
export function OrdersScreen({ route }: { route: Route }) {
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const status = STATUSES.includes(params.status as Status) ? (params.status as Status) : undefined;
  const query: Query = {
    ordered_from: params.ordered_from || undefined,
    ordered_before: params.ordered_before || undefined,
    as_of: params.as_of || undefined,
    customer_id: params.customer_id || undefined,
    status,
    page: String(page),
    per_page: String(PAGE_SIZE),
  };
  const load = useLoad((signal) => api('get', '/orders', { query, signal }), [JSON.stringify(query)]);
  const window = query.ordered_from || query.ordered_before
    ? `${query.ordered_from ? fmt.dateTime(query.ordered_from) : 'the first order'} – ${query.ordered_before ? fmt.dateTime(query.ordered_before) : 'now'}`
    : 'all time';
  return (
    <section aria-labelledby="orders-title">
      <ScreenHeader title="Orders" lead={`Placed ${window}${query.as_of ? `, counted as of ${fmt.dateTime(query.as_of)}` : ''}.`}>
        <SelectField label="Status" name="status" value={status ?? ''}
          options={[{ value: '', label: 'Any status' }, ...STATUSES.map((s) => ({ value: s, label: s }))]}
          onChange={(value) => setParams({ status: value || undefined, page: undefined })} />
      </ScreenHeader>
      <Loaded load={load} label="Loading orders…">
        {(answer) => <OrdersView answer={answer} onPage={(p) => setParams({ page: p })} />}
      </Loaded>
      <p><a href={href('orders')}>All orders</a></p>
    </section>
  );
}

function OrdersView({ answer, onPage }: { answer: Ok<paths['/orders']['get']>; onPage: (page: number) => void }) {
  const s = answer.summary;
  return (
    <div class="stack">
      <ul class="stat-strip" aria-label="Summary of every matching order" data-testid="orders-summary">
        <li><span class="label">Orders</span> <span data-figure="orders">{fmt.int(s.orders)}</span></li>
        <li><span class="label">Revenue</span> <span data-figure="revenue">{fmt.money(s.revenue)}</span> <span class="muted">from {fmt.int(s.counted_orders)} counted</span></li>
        <li><span class="label">Average order value</span> <span data-figure="average_order_value">{fmt.money(s.average_order_value)}</span></li>
        <li><span class="label">Completed</span> <span data-figure="completed">{fmt.int(s.completed)}</span></li>
        <li><span class="label">Cancelled</span> <span data-figure="cancelled">{fmt.int(s.cancelled)}</span></li>
        <li><span class="label">Customers</span> <span data-figure="customers">{fmt.int(s.customers)}</span></li>
      </ul>
      {answer.data.length === 0 ? <Empty>No order matches.</Empty> : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Orders">
            <table>
              <thead>
                <tr><th scope="col">Placed</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col" class="num">Amount</th></tr>
              </thead>
              <tbody>
                {answer.data.map((o) => (
                  <tr key={o.id}>
                    <td>{fmt.dateTime(o.ordered_at)}</td>
                    <td>{o.customer_name ?? o.customer_email ?? o.customer_id}</td>
                    <td><Badge kind={o.status}>{o.status}</Badge></td>
                    <td class="num">{fmt.money(o.total_amount)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={answer.pagination.page} totalPages={answer.pagination.total_pages}
            count={`${fmt.int(answer.pagination.total_count)} orders`} label="orders pages" onPage={onPage} />
        </>
      )}
      <p class="muted">Revenue counts orders not refunded and not cancelled by then, as business health counts them.</p>
    </div>
  );
}
