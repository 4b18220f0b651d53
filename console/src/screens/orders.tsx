import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { CsvButton } from '../components/csv.tsx';
import { Pager, SelectField } from '../components/form.tsx';
import { SortHeader } from '../components/sort.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader } from '../components/screen.tsx';
import { Badge, fmt, ORDER_STATUSES, orderStatusLabel, storeIso, type OrderStatus } from '../format.tsx';
import { text } from '../i18n/index.ts';
import { ordersText } from '../i18n/orders.ts';
import { href, useParams, type Route } from '../router.ts';

type Query = NonNullable<paths['/orders']['get']['parameters']['query']>;
type SortColumn = NonNullable<Query['sort_by']>;
const PAGE_SIZE = 50;
/** The largest page the API gives, for gathering a whole list into a CSV file. */
const EXPORT_PAGE = 200;

/**
 * The orders behind the figures, read-only: the window, moment and status come from the URL, so a figure
 * on the health screen links to exactly the orders it counts, and its summary counts them the same way.
 */
export function OrdersScreen({ route }: { route: Route }) {
  const t = text(ordersText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const status = ORDER_STATUSES.find((s) => s === params.status);
  const figure = (['counted', 'completed', 'cancelled'] as const).find((f) => f === params.figure);
  const query: Query = {
    ordered_from: params.ordered_from || undefined,
    ordered_before: params.ordered_before || undefined,
    as_of: params.as_of || undefined,
    customer_id: params.customer_id || undefined,
    status,
    figure,
    sort_by: params.sort_by === 'total_amount' ? 'total_amount' : undefined,
    sort_order: params.sort_order === 'asc' ? 'asc' : undefined,
    page: String(page),
    per_page: String(PAGE_SIZE),
  };
  const load = useLoad((signal) => api('get', '/orders', { query, signal }), [JSON.stringify(query)]);
  const window = query.ordered_from || query.ordered_before
    ? `${query.ordered_from ? fmt.dateTime(query.ordered_from) : t.firstOrder} – ${query.ordered_before ? fmt.dateTime(query.ordered_before) : t.now}`
    : t.allTime;
  return (
    <section aria-labelledby="orders-title">
      <ScreenHeader title={t.title} lead={t.placed(window, query.as_of ? fmt.dateTime(query.as_of) : undefined)}>
        <SelectField label={t.status} name="status" value={status ?? ''}
          options={[{ value: '', label: t.anyStatus }, ...ORDER_STATUSES.map((s) => ({ value: s, label: orderStatusLabel(s) }))]}
          onChange={(value) => setParams({ status: value || undefined, page: undefined })} />
      </ScreenHeader>
      {figure && (
        <p class="state notice" data-testid="orders-figure">
          {t[`figure.${figure}`]} <a href={href('orders', { ...params, figure: undefined, page: undefined })}>{t.everyOrderOfWindow}</a>
        </p>
      )}
      <Loaded load={load} label={t.loading}>
        {(answer) => (
          <OrdersView answer={answer} query={query} onPage={(p) => setParams({ page: p })}
            onSort={(column) => setParams({
              sort_by: column === 'ordered_at' ? undefined : column,
              sort_order: (query.sort_by ?? 'ordered_at') === column && query.sort_order !== 'asc' ? 'asc' : undefined,
              page: undefined,
            })} />
        )}
      </Loaded>
      <p><a href={href('orders')}>{t.allOrders}</a></p>
    </section>
  );
}

/** Every order the query matches, page after page, as CSV rows (numbers unformatted). */
async function allRows(query: Query) {
  const rows: (string | number | null)[][] = [];
  for (let page = 1; ; page++) {
    const answer = await api('get', '/orders', { query: { ...query, page: String(page), per_page: String(EXPORT_PAGE) } });
    for (const o of answer.data) {
      rows.push([o.id, storeIso(o.ordered_at), o.customer_id, o.customer_name, o.customer_email, o.status, o.total_amount, storeIso(o.completed_at), storeIso(o.cancelled_at)]);
    }
    if (page >= answer.pagination.total_pages) return rows;
  }
}

function OrdersView({ answer, query, onPage, onSort }: {
  answer: Ok<paths['/orders']['get']>;
  query: Query;
  onPage: (page: number) => void;
  onSort: (column: SortColumn) => void;
}) {
  const t = text(ordersText);
  const s = answer.summary;
  const sorted: SortColumn = query.sort_by ?? 'ordered_at';
  const sortHeader = (column: SortColumn, label: string, className?: string) => (
    <SortHeader column={column} label={label} sorted={sorted} ascending={query.sort_order === 'asc'} onSort={onSort} className={className} />
  );
  return (
    <div class="stack">
      <ul class="stat-strip" aria-label={t.summary} data-testid="orders-summary">
        <li><span class="label">{t.orders}</span> <span data-figure="orders">{fmt.int(s.orders)}</span></li>
        <li><span class="label">{t.revenue}</span> <span data-figure="revenue">{fmt.money(s.revenue)}</span> <span class="muted">{t.counted(s.counted_orders)}</span></li>
        <li><span class="label">{t.averageOrderValue}</span> <span data-figure="average_order_value">{fmt.money(s.average_order_value)}</span></li>
        <li><span class="label">{t.completed}</span> <span data-figure="completed">{fmt.int(s.completed)}</span></li>
        <li><span class="label">{t.cancelled}</span> <span data-figure="cancelled">{fmt.int(s.cancelled)}</span></li>
        <li><span class="label">{t.customers}</span> <span data-figure="customers">{fmt.int(s.customers)}</span></li>
      </ul>
      {answer.data.length === 0 ? <Empty>{t.noOrder}</Empty> : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label={t.list}>
            <table>
              <thead>
                <tr>
                  {sortHeader('ordered_at', t.placedAt)}
                  <th scope="col">{t.customer}</th>
                  <th scope="col">{t.status}</th>
                  {sortHeader('total_amount', t.amount, 'num')}
                </tr>
              </thead>
              <tbody>
                {answer.data.map((o) => (
                  <tr key={o.id}>
                    <td>{fmt.dateTime(o.ordered_at)}</td>
                    <td>{o.customer_name ?? o.customer_email ?? o.customer_id}</td>
                    <td><Badge kind={o.status}>{orderStatusLabel(o.status as OrderStatus)}</Badge></td>
                    <td class="num">{fmt.money(o.total_amount)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr><th scope="row" colSpan={3}>{t.pageTotal}</th><td class="num">{fmt.money(answer.data.reduce((sum, o) => sum + o.total_amount, 0))}</td></tr>
              </tfoot>
            </table>
          </div>
          <Pager page={answer.pagination.page} totalPages={answer.pagination.total_pages}
            count={t.orderCount(answer.pagination.total_count)} label={t.pages} onPage={onPage} />
        </>
      )}
      <p class="muted">{t.countedNote}</p>
      <p>
        <CsvButton filename="orders.csv" rows={() => allRows(query)}
          columns={['id', 'ordered_at', 'customer_id', 'customer_name', 'customer_email', 'status', 'total_amount', 'completed_at', 'cancelled_at']} />
      </p>
    </div>
  );
}
