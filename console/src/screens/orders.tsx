import { useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import { ConfirmButton } from '../components/confirm.tsx';
import type { paths } from '../api/openapi.gen.ts';
import { CsvButton, type CsvColumn, csvFileName, timeColumn } from '../components/csv.tsx';
import { Pager, SelectField } from '../components/form.tsx';
import { SortHeader } from '../components/sort.tsx';
import { SearchFilters } from '../components/filters.tsx';
import { changed, Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader, useShownOnOpen } from '../components/screen.tsx';
import { Badge } from '../components/badge.tsx';
import { ORDER_STATUSES, type OrderStatus, orderStatusLabel } from '../format/labels.ts';
import { fmt } from '../format/numbers.ts';
import { addDays, fromStoreWall, storeDayOf, storeToday } from '../format/store-time.ts';
import { MIN_SEARCH_CHARACTERS } from '../../../supabase/functions/orders/search.ts';
import { ORDER_FIGURES } from '../../../supabase/functions/orders/figures.ts';
import { text } from '../i18n/index.ts';
import { ordersText } from '../i18n/orders.ts';
import { href, type Route, useParams } from '../router.ts';

type Query = NonNullable<paths['/orders']['get']['parameters']['query']>;
type SortColumn = NonNullable<Query['sort_by']>;
const PAGE_SIZE = 50;
/** The largest page the API gives, for gathering a whole list into a CSV file. */
const EXPORT_PAGE = 200;
/** Pages asked for at once while gathering a CSV: the list's pages are independent reads. */
const EXPORT_PARALLEL = 4;

/** An order as staff name it: the first 8 digits of its id, as the search finds it. */
export const orderReference = (id: string) => `#${id.slice(0, 8).toUpperCase()}`;

/** The store's midnight starting `day`, as the API's instant. */
const midnight = (day: string) => fromStoreWall(`${day}T00:00`)!;

/** The quick ranges of store days: today, yesterday, the last 7 days (today included), this month. */
function presets() {
  const today = storeToday();
  return [
    ['today', today, addDays(today, 1)],
    ['yesterday', addDays(today, -1), today],
    ['last7', addDays(today, -6), addDays(today, 1)],
    ['month', `${today.slice(0, 8)}01`, addDays(today, 1)],
  ] as const;
}

/** The store day starting at `instant`, if it is a store midnight. */
function dayStartingAt(instant: string): string | undefined {
  const day = storeDayOf(instant);
  return midnight(day) === new Date(instant).toISOString() ? day : undefined;
}

/**
 * The window as staff read it. Bounded by store midnights at both ends (the presets, a day's figure), it is
 * whole store days, the last one shown as included: "Nov 1 – Nov 28", not "Nov 1, 12:00 AM – Nov 29,
 * 12:00 AM", which read as if the 29th were in it. Otherwise the two instants as they are.
 */
function windowWords(from?: string, before?: string): string {
  const t = text(ordersText);
  if (!from && !before) return t.allTime;
  const [first, end] = [from && dayStartingAt(from), before && dayStartingAt(before)];
  if (first && end) {
    const last = addDays(end, -1);
    return first === last ? fmt.day(first) : `${fmt.day(first)} – ${fmt.day(last)}`;
  }
  return `${from ? fmt.dateTime(from) : t.firstOrder} – ${before ? fmt.dateTime(before) : t.now}`;
}

/**
 * The orders behind the figures, read-only: the window, moment and status come from the URL, so a figure
 * on the health screen links to exactly the orders it counts, and its summary counts them the same way.
 */
export function OrdersScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(ordersText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const status = ORDER_STATUSES.find((s) => s === params.status);
  const figure = ORDER_FIGURES.find((f) => f === params.figure);
  const query: Query = {
    search: params.search || undefined,
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
  // Named `orders`, so a move on an order's page (which keeps this load) reloads the list it returns to.
  const load = useLoad((signal) => api('get', '/orders', { query, signal }), [JSON.stringify(query)], 'orders');
  const window = windowWords(query.ordered_from, query.ordered_before);
  if (params.id) {
    return <OrderPage id={params.id} isAdmin={isAdmin} back={href('orders', { ...params, id: undefined })} />;
  }
  return (
    <section aria-labelledby='orders-title'>
      <ScreenHeader title={t.title} lead={t.placed(window, query.as_of ? fmt.dateTime(query.as_of) : t.now)} />
      <SearchFilters
        route={route}
        label={t.filterOrders}
        placeholder={t.searchPlaceholder}
        minCharacters={MIN_SEARCH_CHARACTERS}
      >
        <SelectField
          label={t.status}
          name='status'
          value={status ?? ''}
          options={[
            { value: '', label: t.anyStatus },
            ...ORDER_STATUSES.map((s) => ({ value: s, label: orderStatusLabel(s) })),
          ]}
          onChange={(value) => setParams({ status: value || undefined, page: undefined })}
        />
      </SearchFilters>
      <nav class='presets' aria-label={t.quickRanges}>
        {presets().map(([key, from, before]) => {
          const range = { ordered_from: midnight(from), ordered_before: midnight(before) };
          const current = range.ordered_from === query.ordered_from && range.ordered_before === query.ordered_before;
          return (
            <a
              key={key}
              class='button'
              href={href('orders', { ...params, ...range, as_of: undefined, page: undefined })}
              aria-current={current ? 'true' : undefined}
              data-preset={key}
            >
              {t[`preset.${key}`]}
            </a>
          );
        })}
      </nav>
      {figure && (
        <p class='state notice' data-testid='orders-figure'>
          {t[`figure.${figure}`]}{' '}
          <a href={href('orders', { ...params, figure: undefined, page: undefined })}>{t.everyOrderOfWindow}</a>
        </p>
      )}
      <Loaded load={load} label={t.loading}>
        {(answer) => (
          <OrdersView
            answer={answer}
            query={query}
            params={params}
            onPage={(p) => setParams({ page: p })}
            onSort={(column) =>
              setParams({
                sort_by: column === 'ordered_at' ? undefined : column,
                sort_order: (query.sort_by ?? 'ordered_at') === column && query.sort_order !== 'asc'
                  ? 'asc'
                  : undefined,
                page: undefined,
              })}
          />
        )}
      </Loaded>
      <p>
        <a href={href('orders')}>{t.allOrders}</a>
      </p>
    </section>
  );
}

type Order = Ok<paths['/orders']['get']>['data'][number];

/**
 * Every order the query matches, in the list's order: the first page says how many there are, the rest are
 * asked for a few at a time.
 */
async function allOrders(query: Query, progress: (gathered: number, total: number) => void): Promise<Order[]> {
  const read = (page: number) =>
    api('get', '/orders', { query: { ...query, page: String(page), per_page: String(EXPORT_PAGE) } });
  const first = await read(1);
  const total = first.pagination.total_count;
  const orders = [...first.data];
  progress(orders.length, total);
  for (let next = 2; next <= first.pagination.total_pages; next += EXPORT_PARALLEL) {
    const batch = Array.from(
      { length: Math.min(EXPORT_PARALLEL, first.pagination.total_pages - next + 1) },
      (_, i) => next + i,
    );
    for (const answer of await Promise.all(batch.map(read))) orders.push(...answer.data);
    progress(orders.length, total);
  }
  return orders;
}

/** The orders file's columns: the reference staff use first, the ids other systems join on last. */
function orderColumns(): CsvColumn<Order>[] {
  const t = text(ordersText);
  return [
    { header: t.order, cell: (o) => orderReference(o.id) },
    timeColumn(t.placedAt, (o) => o.ordered_at),
    { header: t.customer, cell: (o) => o.customer_name },
    { header: t.email, cell: (o) => o.customer_email },
    { header: t.status, cell: (o) => orderStatusLabel(o.status as OrderStatus) },
    { header: t.amount, cell: (o) => o.total_amount },
    timeColumn(t.completedAt, (o) => o.completed_at),
    timeColumn(t.cancelledAt, (o) => o.cancelled_at),
    { header: t.orderId, cell: (o) => o.id },
    { header: t.customerId, cell: (o) => o.customer_id },
  ];
}

type OrderLine = NonNullable<Order['lines']>[number] & { order: Order };

/** Every line of the orders the query matches, one row each; an order without lines is one row of its own. */
async function allLines(query: Query, progress: (gathered: number, total: number) => void): Promise<OrderLine[]> {
  const orders = await allOrders({ ...query, with_lines: 'true' }, progress);
  return orders.flatMap((order) =>
    (order.lines ?? []).length > 0 ? order.lines!.map((line) => ({ ...line, order })) : [{ order } as OrderLine]
  );
}

/** The file of one row per line: the order's reference and customer, then what the line sold. */
function lineColumns(): CsvColumn<OrderLine>[] {
  const t = text(ordersText);
  return [
    { header: t.order, cell: (l) => orderReference(l.order.id) },
    timeColumn(t.placedAt, (l) => l.order.ordered_at),
    { header: t.customer, cell: (l) => l.order.customer_name },
    { header: t.status, cell: (l) => orderStatusLabel(l.order.status as OrderStatus) },
    { header: t.lineNumber, cell: (l) => l.line_number ?? null },
    { header: t.sku, cell: (l) => l.sku ?? null },
    { header: t.product, cell: (l) => l.name ?? null },
    { header: t.quantity, cell: (l) => l.quantity ?? l.order.item_count },
    { header: t.unitPrice, cell: (l) => l.unit_price ?? null },
    { header: t.amount, cell: (l) => l.amount ?? l.order.total_amount },
    { header: t.cost, cell: (l) => l.cost ?? t.unknown },
    // A refunded order has no revenue to set a cost against: no margin, rather than an unknown one.
    { header: t.margin, cell: (l) => l.order.status === 'refunded' ? null : l.margin ?? t.unknown },
    { header: t.orderId, cell: (l) => l.order.id },
  ];
}

/** The store days a window covers, its last one included, for a file's name; none for all time. */
function windowDays(from?: string, before?: string): (string | undefined)[] {
  const end = before && (dayStartingAt(before) ? addDays(dayStartingAt(before)!, -1) : storeDayOf(before));
  return [from && storeDayOf(from), end];
}

function OrdersView({ answer, query, params, onPage, onSort }: {
  answer: Ok<paths['/orders']['get']>;
  query: Query;
  params: Record<string, string | undefined>;
  onPage: (page: number) => void;
  onSort: (column: SortColumn) => void;
}) {
  const t = text(ordersText);
  const s = answer.summary;
  const sorted: SortColumn = query.sort_by ?? 'ordered_at';
  const sortHeader = (column: SortColumn, label: string, className?: string) => (
    <SortHeader
      column={column}
      label={label}
      sorted={sorted}
      ascending={query.sort_order === 'asc'}
      onSort={onSort}
      className={className}
    />
  );
  return (
    <div class='stack'>
      <p class='csv-top'>
        <CsvButton
          filename={csvFileName(t.csvFile, windowDays(query.ordered_from, query.ordered_before))}
          rows={(progress) => allOrders(query, progress)}
          columns={orderColumns()}
        />{' '}
        <CsvButton
          filename={csvFileName(t.linesFile, windowDays(query.ordered_from, query.ordered_before))}
          label={t.downloadLines}
          rows={(progress) => allLines(query, progress)}
          columns={lineColumns()}
        />
      </p>
      <ul class='stat-strip' aria-label={t.summary} data-testid='orders-summary'>
        <li>
          <span class='label'>{t.orders}</span> <span data-figure='orders'>{fmt.int(s.orders)}</span>
        </li>
        <li>
          <span class='label'>{t.revenue}</span> <span data-figure='revenue'>{fmt.money(s.revenue)}</span>{' '}
          <span class='muted'>{t.counted(s.counted_orders)}</span>
        </li>
        <li>
          <span class='label'>{t.averageOrderValue}</span>{' '}
          <span data-figure='average_order_value'>{fmt.money(s.average_order_value)}</span>
        </li>
        <li>
          <span class='label'>{t.completed}</span> <span data-figure='completed'>{fmt.int(s.completed)}</span>
        </li>
        <li>
          <span class='label'>{t.cancelled}</span> <span data-figure='cancelled'>{fmt.int(s.cancelled)}</span>
        </li>
        <li>
          <span class='label'>{t.refunded}</span> <span data-figure='refunded'>{fmt.int(s.refunded)}</span>
        </li>
        <li>
          <span class='label'>{t.customers}</span> <span data-figure='customers'>{fmt.int(s.customers)}</span>
        </li>
      </ul>
      {answer.data.length === 0 ? <Empty>{t.noOrder}</Empty> : (
        <>
          <div class='table-wrap' tabIndex={0} role='region' aria-label={t.list}>
            <table>
              <thead>
                <tr>
                  <th scope='col'>{t.order}</th>
                  {sortHeader('ordered_at', t.placedAt)}
                  <th scope='col'>{t.customer}</th>
                  <th scope='col'>{t.status}</th>
                  {sortHeader('total_amount', t.amount, 'num')}
                </tr>
              </thead>
              <tbody>
                {answer.data.map((o) => (
                  <tr key={o.id}>
                    <td>
                      <a href={href('orders', { ...params, id: o.id })} data-order={o.id}>{orderReference(o.id)}</a>
                    </td>
                    <td>{fmt.dateTime(o.ordered_at)}</td>
                    <td data-user-text>{o.customer_name ?? o.customer_email ?? o.customer_id}</td>
                    <td>
                      <Badge kind={o.status}>{orderStatusLabel(o.status as OrderStatus)}</Badge>
                    </td>
                    <td class='num'>{fmt.money(o.total_amount)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope='row' colSpan={4}>{t.pageTotal}</th>
                  <td class='num'>{fmt.money(answer.data.reduce((sum, o) => sum + o.total_amount, 0))}</td>
                </tr>
              </tfoot>
            </table>
          </div>
          <Pager
            page={answer.pagination.page}
            totalPages={answer.pagination.total_pages}
            count={t.orderCount(answer.pagination.total_count)}
            label={t.pages}
            onPage={onPage}
          />
        </>
      )}
      <p class='muted'>{t.countedNote}</p>
    </div>
  );
}

/** One order: what it is, who bought it, what happened to it and when, and the customer's other orders. */
function OrderPage({ id, isAdmin, back }: { id: string; isAdmin: boolean; back: string }) {
  const t = text(ordersText);
  const load = useLoad(
    (signal) => api('get', '/orders/{id}', { path: { id }, signal }).then((r) => r.data),
    [id],
    'order',
  );
  useShownOnOpen(load.data !== undefined, 'order-title');
  return (
    <section class='stack' aria-labelledby='order-title'>
      <p>
        <a href={back}>{t.backToOrders}</a>
      </p>
      <Loaded load={load} label={t.loadingOrder}>
        {(o) => (
          <div class='card detail stack'>
            <h1 id='order-title'>
              {t.orderTitle(orderReference(o.id))}{' '}
              <Badge kind={o.status}>{orderStatusLabel(o.status as OrderStatus)}</Badge>
            </h1>
            <dl class='facts'>
              <div>
                <dt>{t.customer}</dt>
                <dd>
                  <span data-user-text>{o.customer_name ?? ''}</span>
                  {o.customer_email && (
                    <>
                      <br />
                      <small class='muted' data-user-text>{o.customer_email}</small>
                    </>
                  )}
                </dd>
              </div>
              <div>
                <dt>{t.amount}</dt>
                <dd>{fmt.money(o.total_amount)}</dd>
              </div>
              <div>
                <dt>{t.items}</dt>
                <dd>{fmt.int(o.item_count)}</dd>
              </div>
              {o.lines.length > 0 && (
                <div>
                  <dt>{t.cost}</dt>
                  <dd data-testid='order-cost'>
                    {o.cost === null ? t[`unknownCost.${unknownCost(o)}`] : fmt.money(o.cost)}
                  </dd>
                </div>
              )}
              {o.lines.length > 0 && o.status !== 'refunded' && (
                <div>
                  <dt>{t.margin}</dt>
                  <dd data-testid='order-margin'>
                    {o.margin === null ? t[`unknownCost.${unknownCost(o)}`] : fmt.money(o.margin)}
                  </dd>
                </div>
              )}
              {o.promised_at && (
                <div>
                  <dt>{t.promisedBy}</dt>
                  <dd>{fmt.dateTime(o.promised_at)}</dd>
                </div>
              )}
            </dl>
            {o.lines.length > 0 && <OrderLines order={o} />}
            {isAdmin && o.lines.length > 0 && (
              <OrderMoves
                order={o}
                onChanged={() => changed('order', 'product', 'products', 'stock-summary', 'orders')}
              />
            )}
            <h2>{t.timeline}</h2>
            <ol class='timeline' data-testid='order-timeline'>
              {o.timeline.map((step) => (
                <li key={step.event} data-event={step.event}>
                  <strong>{t[`event.${step.event}`]}</strong> <span class='muted'>{fmt.dateTime(step.at)}</span>
                </li>
              ))}
            </ol>
            <p>
              <a href={href('orders', { customer_id: o.customer_id })} data-testid='customer-orders'>
                {t.customerOrders(o.customer_order_count)}
              </a>
            </p>
          </div>
        )}
      </Loaded>
    </section>
  );
}

type OrderDetail = Ok<paths['/orders/{id}']['get']>['data'];

/**
 * Why an order's goods have no cost (nor margin): not shipped yet, never to be (cancelled or refunded before
 * shipping), or shipped from a lot whose cost was not recorded.
 */
function unknownCost(order: OrderDetail): 'unshipped' | 'released' | 'lotWithoutCost' {
  if (order.lines.some((line) => line.lots.length === 0)) return released(order) ? 'released' : 'unshipped';
  return 'lotWithoutCost';
}

/** Whether an order without drawn goods gave them back: cancelled or refunded (the moves table's `release`). */
const released = (order: OrderDetail) => order.status === 'cancelled' || order.status === 'refunded';

/** What the order bought: each line's product (linked), quantity, price, amount, and the lots it drew. */
function OrderLines({ order }: { order: OrderDetail }) {
  const t = text(ordersText);
  return (
    <>
      <h2>{t.goods}</h2>
      <div class='table-wrap' tabIndex={0} role='region' aria-label={t.goods}>
        <table data-testid='order-lines'>
          <caption class='visually-hidden'>{t.goods}</caption>
          <thead>
            <tr>
              <th scope='col'>{t.product}</th>
              <th scope='col' class='num'>{t.quantity}</th>
              <th scope='col' class='num'>{t.unitPrice}</th>
              <th scope='col' class='num'>{t.amount}</th>
              <th scope='col'>{t.lotsDrawn}</th>
            </tr>
          </thead>
          <tbody>
            {order.lines.map((line) => (
              <tr key={line.id} data-line={line.line_number}>
                <td>
                  <a href={href('inventory', { id: line.product_id })} data-user-text>{line.name ?? line.sku ?? ''}</a>
                  <br />
                  <small class='muted' data-user-text>{line.sku ?? ''}</small>
                </td>
                <td class='num'>{fmt.int(line.quantity)}</td>
                <td class='num'>{fmt.money(line.unit_price)}</td>
                <td class='num'>{fmt.money(line.amount)}</td>
                <td data-testid='line-lots'>
                  {line.lots.length === 0
                    ? <span class='muted'>{released(order) ? t.released : t.notDrawn}</span>
                    : line.lots.map((lot) => (
                      <div key={lot.inventory_id}>
                        {lot.lot_number ? <span data-user-text>{lot.lot_number}</span> : t.lotWithoutNumber}
                        {' × '}
                        {fmt.int(lot.quantity)}
                        {lot.returned_quantity > 0 && <small class='muted'>{t.returned(lot.returned_quantity)}</small>}
                      </div>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The order's next steps, from the moves table: each asks first, naming what it does to the goods. */
function OrderMoves({ order, onChanged }: { order: OrderDetail; onChanged: () => void }) {
  const t = text(ordersText);
  const moves = useLoad((signal) => api('get', '/orders/moves', { signal }).then((r) => r.data.moves), []);
  const [restock, setRestock] = useState(false);
  const [done, setDone] = useState('');
  const next = (moves.data ?? []).filter((m) => m.from_status === order.status && ORDER_ACTIONS.includes(m.to_status));
  if (next.length === 0) return done ? <p class='state success' role='status'>{done}</p> : null;
  const move = async (to: OrderStatus) => {
    const body = to === 'refunded' && next.find((m) => m.to_status === to)?.goods === 'return'
      ? { status: to, restock }
      : { status: to };
    await api('patch', '/orders/{id}', { path: { id: order.id }, body });
    setDone(t.movedTo(orderStatusLabel(to)));
    onChanged();
  };
  return (
    <div class='actions' role='group' aria-label={t.nextSteps}>
      {next.map((m) => (
        <span key={m.to_status} class='stack-inline'>
          {m.goods === 'return' && (
            <label>
              <input
                type='checkbox'
                checked={restock}
                onChange={(e) => setRestock((e.target as HTMLInputElement).checked)}
              />{' '}
              {t.putBack}
            </label>
          )}
          <ConfirmButton
            label={t[`action.${m.to_status as OrderAction}`]}
            buttonClass={m.to_status === 'shipped' ? 'primary' : 'danger'}
            yes={t[`action.${m.to_status as OrderAction}`]}
            question={t[`question.${m.goods}`](m.goods === 'return' && restock, m.to_status === 'refunded')}
            onConfirm={() => move(m.to_status)}
          />
        </span>
      ))}
      {done && <p class='state success' role='status'>{done}</p>}
    </div>
  );
}

/** The moves the order page offers as buttons; the others (paid, delivered, completed) are the store's jobs'. */
const ORDER_ACTIONS: OrderStatus[] = ['shipped', 'cancelled', 'refunded'];
type OrderAction = 'shipped' | 'cancelled' | 'refunded';
