import { useEffect, useRef, useState } from 'preact/hooks';
import { enums } from '../api/enums.ts';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm.tsx';
import { CsvButton, type CsvColumn, csvFileName, timeColumn, yesNoColumn } from '../components/csv.tsx';
import { SortHeader } from '../components/sort.tsx';
import { SearchFilters } from '../components/filters.tsx';
import { checks, Field, FormError, Pager, SelectField, useForm } from '../components/form.tsx';
import { changed, Empty, Loaded, useLoad } from '../components/load.tsx';
import { STOCK } from '../components/live.ts';
import { ScreenHeader, Tabs, useShownOnOpen } from '../components/screen.tsx';
import { Badge } from '../components/badge.tsx';
import { fmt } from '../format/numbers.ts';
import { storeDayOf, storeToday } from '../format/store-time.ts';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { inventoryText } from '../i18n/inventory.ts';
import { href, type Route, useParams } from '../router.ts';
import { DeliveryForm, StockAdjustForm, StockInForm } from './stock-forms.tsx';
import { orderReference } from './orders.tsx';
import { MAX_REORDER_LEVEL } from '../../../supabase/functions/products/fields.ts';

type Product = Ok<paths['/products/{id}']['get']>['data'];
type ProductRow = Ok<paths['/products']['get']>['data'][number];

/** The products file: the list's columns, the stock state in words, the id other systems join on last. */
function productColumns(): CsvColumn<ProductRow>[] {
  const t = text(inventoryText);
  return [
    { header: t.name, cell: (p) => p.name },
    { header: t.sku, cell: (p) => p.sku },
    { header: t.stock, cell: (p) => p.current_stock },
    { header: t.reorderLevel, cell: (p) => p.reorder_level },
    { header: t.stockStatus, cell: (p) => t[`status.${p.stock_status}`] },
    yesNoColumn(t.activeOnSale, (p) => p.is_active),
    { header: t.productId, cell: (p) => p.id },
  ];
}
type Movement = Ok<paths['/products/{id}/movements']['get']>['data'][number];
type StockIn = Ok<paths['/products/{id}/stock-ins']['get']>['data'][number];

/** A product's ledger as a file: each move's words as on screen, its stock before and after apart. */
function movementColumns(): CsvColumn<Movement>[] {
  const t = text(inventoryText);
  return [
    timeColumn(t.when, (m) => m.created_at),
    { header: t.operation, cell: (m) => t.code(m.operation) },
    { header: t.change, cell: (m) => m.delta },
    { header: t.stockBefore, cell: (m) => m.stock_before },
    { header: t.stockAfter, cell: (m) => m.stock_after },
    { header: t.why, cell: (m) => t.code(m.reason ?? m.source) },
    { header: t.reasonNote, cell: (m) => m.reason_note },
    { header: t.referenceColumn, cell: (m) => m.reference },
    { header: t.lotNumber, cell: (m) => m.lot_number },
    { header: t.who, cell: (m) => (m.operator_role === 'service_role' ? text(common).storeJob : m.operator_email) },
  ];
}

/** A product's deliveries as a file, as the stock-ins tab lists them. */
function stockInColumns(): CsvColumn<StockIn>[] {
  const t = text(inventoryText);
  return [
    timeColumn(t.received, (x) => x.received_at),
    { header: t.quantity, cell: (x) => x.quantity },
    { header: t.lotNumber, cell: (x) => x.lot_number },
    { header: t.expiresOn, cell: (x) => x.expires_on },
    { header: t.source, cell: (x) => t.code(x.source) },
    { header: t.note, cell: (x) => x.note },
    timeColumn(t.booked, (x) => x.created_at),
  ];
}
const PAGE_SIZE = 25;
const LEDGER_PAGE = 20;
/** The columns the product list sorts by (the API's `sort_by`). */
const PRODUCT_SORTS = ['name', 'current_stock', 'reorder_level'] as const;
type ProductSort = (typeof PRODUCT_SORTS)[number];
type StockStatus = (typeof enums.stock_status)[number];
/** How far ahead the expiring view looks unless told otherwise: the API's default, the navigation's count. */
const EXPIRING_DAYS = 30;

/** A product's stock status as a badge: out of stock apart from low; nothing when in stock. */
function StockBadge({ status }: { status: StockStatus }) {
  const t = text(inventoryText);
  if (status === 'in_stock') return null;
  return <Badge kind={status === 'out_of_stock' ? 'bad' : 'warning'}>{t[`status.${status}`]}</Badge>;
}

export function InventoryScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(inventoryText);
  const [params, setParams] = useParams(route);
  return (
    <section class='stack'>
      <ScreenHeader title={t.title} lead={t.lead}>
        <a class='button' href={href('inventory', { ...params, id: undefined, edit: 'delivery' })}>
          {t.receiveDelivery}
        </a>
        {isAdmin && (
          <a class='button primary' href={href('inventory', { ...params, id: undefined, edit: 'new' })}>
            {t.newProduct}
          </a>
        )}
      </ScreenHeader>
      {isAdmin && params.edit === 'new' && (
        <ProductForm
          onSaved={(p) => {
            changed('products');
            setParams({ edit: undefined, id: p.id });
          }}
          onCancel={() => setParams({ edit: undefined })}
        />
      )}
      {params.edit === 'delivery' && <DeliveryForm onClose={() => setParams({ edit: undefined })} />}
      <Tabs
        label={t.inventoryViews}
        current={params.view === 'expiring' ? 'expiring' : 'products'}
        tabs={[
          {
            id: 'products',
            label: t.productsView,
            href: href('inventory', { ...params, view: undefined, page: undefined }),
          },
          {
            id: 'expiring',
            label: t.expiringView,
            href: href('inventory', { ...params, view: 'expiring', page: undefined }),
          },
        ]}
      />
      <div class={params.id ? 'two-columns inventory-layout' : ''}>
        {params.view === 'expiring' ? <ExpiringLots route={route} /> : <ProductList route={route} />}
        {params.id && <ProductDetail key={params.id} route={route} isAdmin={isAdmin} />}
      </div>
    </section>
  );
}

function ProductList({ route }: { route: Route }) {
  const t = text(inventoryText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const status = enums.stock_status.find((x) => x === params.status);
  const low = status === 'low_stock';

  const sortColumn = PRODUCT_SORTS.find((c) => c === params.sort);
  const order = sortColumn
    ? { sort_by: sortColumn, sort_order: params.desc === '1' ? 'desc' as const : 'asc' as const }
    : low
    ? {}
    : { sort_by: 'name' as const, sort_order: 'asc' as const };
  const onSort = (column: ProductSort) =>
    setParams({
      sort: column,
      desc: (sortColumn ?? (low ? undefined : 'name')) === column && params.desc !== '1' ? '1' : undefined,
      page: undefined,
    });
  const list = useLoad(
    (signal) =>
      api('get', '/products', {
        // By the column chosen, else by name (naturally: 2 before 10); the low-stock list, unless a column is
        // chosen, by the API's own order, most urgent first.
        query: {
          search: params.search,
          stock_status: status,
          page: String(page),
          per_page: String(PAGE_SIZE),
          ...order,
        },
        signal,
      }),
    [params.search, status, page, params.sort, params.desc],
    'products',
  );

  return (
    <section class='stack' aria-labelledby='products-title'>
      <h2 id='products-title' class='visually-hidden'>{t.products}</h2>
      <SearchFilters route={route} label={t.filterProducts} placeholder={t.searchPlaceholder}>
        <SelectField
          label={t.stockStatus}
          name='stock_status'
          value={status ?? ''}
          onChange={(x) => setParams({ status: x || undefined, page: undefined })}
          options={[
            { value: '', label: t.allStock },
            ...enums.stock_status.map((x) => ({ value: x, label: t[`status.${x}`] })),
          ]}
        />
      </SearchFilters>
      <Loaded load={list} label={t.loadingProducts}>
        {(r) =>
          r.data.length === 0 ? <Empty>{params.search || status ? t.noMatch : t.noProducts}</Empty> : (
            <>
              <div class='table-wrap' tabIndex={0} role='region' aria-label={t.productsCaption}>
                <table class='products'>
                  <caption class='visually-hidden'>{t.productsCaption}</caption>
                  <thead>
                    <tr>
                      <SortHeader
                        column='name'
                        label={t.product}
                        sorted={order.sort_by}
                        ascending={order.sort_order !== 'desc'}
                        onSort={onSort}
                      />
                      <SortHeader
                        column='current_stock'
                        label={t.stock}
                        sorted={order.sort_by}
                        ascending={order.sort_order !== 'desc'}
                        onSort={onSort}
                        className='num'
                      />
                      <SortHeader
                        column='reorder_level'
                        label={t.reorderAt}
                        sorted={order.sort_by}
                        ascending={order.sort_order !== 'desc'}
                        onSort={onSort}
                        className='num'
                      />
                      <th scope='col'>{t.state}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.data.map((p) => (
                      <tr
                        key={p.id}
                        aria-current={p.id === params.id ? 'true' : undefined}
                        data-sku={p.sku}
                        data-stock-status={p.stock_status}
                      >
                        <td>
                          <a href={href('inventory', { ...params, id: p.id, edit: undefined })}>{p.name}</a>
                          <br />
                          <small class='muted' data-user-text>{p.sku}</small>
                        </td>
                        <td class='num'>
                          <span data-stock>{fmt.int(p.current_stock)}</span>
                          {p.reserved_stock > 0 && (
                            <>
                              <br />
                              <small class='muted'>{t.reservedOf(fmt.int(p.reserved_stock))}</small>
                            </>
                          )}
                        </td>
                        <td class='num'>{fmt.int(p.reorder_level)}</td>
                        <td>
                          <StockBadge status={p.stock_status} />{' '}
                          {!p.is_active && <Badge kind='completed'>{t.inactive}</Badge>}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                page={r.pagination.page}
                totalPages={r.pagination.total_pages}
                count={t.productCount(r.pagination.total_count)}
                label={t.productPages}
                onPage={(p) => setParams({ page: p })}
              />
              <p>
                <CsvButton
                  filename={csvFileName(t.productsFile)}
                  columns={productColumns()}
                  rows={async () => {
                    const rows: ProductRow[] = [];
                    for (let p = 1;; p++) {
                      const r = await api('get', '/products', {
                        query: {
                          search: params.search,
                          stock_status: status,
                          page: String(p),
                          per_page: '200',
                          ...order,
                        },
                      });
                      rows.push(...r.data);
                      if (p >= r.pagination.total_pages) return rows;
                    }
                  }}
                />
              </p>
            </>
          )}
      </Loaded>
    </section>
  );
}

function ProductDetail({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const t = text(inventoryText);
  const [params, setParams] = useParams(route);
  const id = params.id;
  const [message, setMessage] = useState('');
  const [undo, setUndo] = useState<{ label: string; run: () => Promise<string> } | null>(null);
  const said = useRef<HTMLParagraphElement>(null);
  const product = useLoad(
    (signal) => api('get', '/products/{id}', { path: { id }, signal }).then((r) => r.data),
    [id],
    'product',
  );
  useShownOnOpen(product.data !== undefined, 'product-title');
  // Every booking says what it did, where focus goes; an adjustment can be undone by its opposite.
  const booked = (said: string, undoIt?: { label: string; run: () => Promise<string> }) => {
    setMessage(said);
    setUndo(undoIt ?? null);
    changed(...STOCK);
  };
  useEffect(() => {
    if (message) said.current?.focus();
  }, [message]);
  const tab = params.tab === 'stock-ins' ? 'stock-ins' : 'ledger';
  return (
    <section class='card detail stack' aria-labelledby='product-title'>
      <Loaded load={product} label={t.loadingProduct}>
        {(p) => (
          <>
            <div class='detail-head'>
              <h2 id='product-title'>
                <span data-user-text>{p.name}</span> <small class='muted' data-user-text>{p.sku}</small>
              </h2>
              <a
                href={href('inventory', {
                  ...params,
                  id: undefined,
                  edit: undefined,
                  tab: undefined,
                  lpage: undefined,
                })}
              >
                {t.close}
              </a>
            </div>
            <p class='stock-line'>
              <span class='big' data-testid='current-stock'>{fmt.int(p.current_stock)}</span>
              {t.inStock(fmt.int(p.reorder_level))} <StockBadge status={p.stock_status} />{' '}
              {!p.is_active && <Badge kind='completed'>{t.inactive}</Badge>}
            </p>
            <dl class='facts' data-testid='stock-states'>
              <div>
                <dt>{t.onHand}</dt>
                <dd data-state='on-hand'>{fmt.int(p.current_stock)}</dd>
              </div>
              <div>
                <dt>{t.reserved}</dt>
                <dd data-state='reserved'>{fmt.int(p.reserved_stock)}</dd>
              </div>
              <div>
                <dt>{t.available}</dt>
                <dd data-state='available'>{fmt.int(p.available_stock)}</dd>
              </div>
              <div>
                <dt>{t.soldLast(7)}</dt>
                <dd data-state='sold-7'>{fmt.int(p.units_sold.last_7_days)}</dd>
              </div>
              <div>
                <dt>{t.soldLast(30)}</dt>
                <dd data-state='sold-30'>{fmt.int(p.units_sold.last_30_days)}</dd>
              </div>
              <div>
                <dt>{t.allocation}</dt>
                <dd>{t.code(p.allocation)}</dd>
              </div>
            </dl>
            {message && (
              <p class='state success' role='status' tabIndex={-1} ref={said}>
                {message} {undo && (
                  <button
                    type='button'
                    class='link'
                    onClick={async () => {
                      const { run } = undo;
                      setUndo(null);
                      try {
                        booked(await run());
                      } catch (e) {
                        setMessage((e as Error).message);
                      }
                    }}
                  >
                    {undo.label}
                  </button>
                )}
              </p>
            )}
            {isAdmin && params.edit === p.id
              ? (
                <ProductForm
                  product={p}
                  onSaved={() => {
                    setParams({ edit: undefined });
                    booked(t.productSaved);
                  }}
                  onCancel={() => setParams({ edit: undefined })}
                />
              )
              : isAdmin && (
                <div class='actions'>
                  <a class='button' href={href('inventory', { ...params, edit: p.id })}>{t.editProduct}</a>
                  <DeleteProduct
                    product={p}
                    onDone={() => {
                      changed('products');
                      setParams({ id: undefined });
                    }}
                  />
                </div>
              )}
            <Lots product={p} />
            <div class='two-columns'>
              <StockInForm productId={p.id} productName={p.name} onDone={booked} />
              <StockAdjustForm
                productId={p.id}
                productName={p.name}
                onDone={booked}
                lots={p.lots.map((l) => ({
                  id: l.inventory_id,
                  label: t.lotLabel(
                    l.lot_number ?? fmt.day(storeDayOf(l.received_at)),
                    l.available_quantity,
                    l.quantity,
                  ),
                }))}
              />
            </div>
            <Tabs
              label={t.productHistory}
              current={tab}
              tabs={[
                { id: 'ledger', label: t.ledger, href: href('inventory', { ...params, tab: undefined }) },
                {
                  id: 'stock-ins',
                  label: t.stockIns,
                  href: href('inventory', { ...params, tab: 'stock-ins', lpage: undefined }),
                },
              ]}
            />
            {tab === 'ledger'
              ? <Ledger route={route} id={p.id} sku={p.sku} />
              : <StockIns route={route} id={p.id} sku={p.sku} />}
          </>
        )}
      </Loaded>
    </section>
  );
}

function Lots({ product }: { product: Product }) {
  const t = text(inventoryText);
  return (
    <section aria-labelledby='lots-title'>
      <h3 id='lots-title'>
        {t.lots} <span class='muted'>{t.lotsOrder(product.allocation)}</span>
      </h3>
      {product.lots.length === 0
        ? <Empty>{product.current_stock > 0 ? t.lotsForAdmins : t.neverStocked}</Empty>
        : (
          <div class='table-wrap' tabIndex={0} role='region' aria-label={t.lots}>
            <table>
              <thead>
                <tr>
                  <th scope='col'>{t.received}</th>
                  <th scope='col'>{t.lotNumber}</th>
                  <th scope='col'>{t.expiresOn}</th>
                  <th scope='col' class='num'>{t.left}</th>
                  <th scope='col' class='num'>{t.receivedQty}</th>
                  <th scope='col' class='num'>{t.unitCost}</th>
                  <th scope='col'>{t.source}</th>
                  <th scope='col'>{t.note}</th>
                </tr>
              </thead>
              <tbody>
                {product.lots.map((l) => (
                  <tr key={l.inventory_id} data-lot={l.lot_number ?? undefined}>
                    <td>{fmt.dateTime(l.received_at)}</td>
                    <td data-user-text>{l.lot_number ?? t.noLotNumber}</td>
                    <td>
                      <Expiry day={l.expires_on} />
                    </td>
                    <td class='num'>{fmt.int(l.available_quantity)}</td>
                    <td class='num'>{fmt.int(l.quantity)}</td>
                    <td class='num'>{l.unit_cost === null ? '—' : fmt.money(l.unit_cost)}</td>
                    <td>{t.code(l.source)}</td>
                    <td>{l.note ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </section>
  );
}

/** An expiry day, flagged once it has passed (the store's today). */
function Expiry({ day }: { day: string | null }) {
  const t = text(inventoryText);
  if (!day) return <>{t.noLotNumber}</>;
  return (
    <>
      {fmt.day(day)}
      {day < storeToday() && (
        <>
          <Badge kind='bad'>{t.expired}</Badge>
        </>
      )}
    </>
  );
}

/** The lots with stock left that expire soon or have expired, soonest first (GET /products/expiring). */
function ExpiringLots({ route }: { route: Route }) {
  const t = text(inventoryText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const days = /^\d{1,4}$/.test(params.within ?? '') && Number(params.within) <= 3650
    ? Number(params.within)
    : EXPIRING_DAYS;
  const load = useLoad(
    (signal) =>
      api('get', '/products/expiring', {
        query: { within_days: String(days), page: String(page), per_page: String(PAGE_SIZE) },
        signal,
      }),
    [days, page],
    'expiring',
  );
  return (
    <section class='stack' aria-labelledby='expiring-title'>
      <h2 id='expiring-title' class='visually-hidden'>{t.expiringView}</h2>
      <p class='muted'>{t.expiringLead(days)}</p>
      <div class='filters'>
        <SelectField
          label={t.withinDays}
          name='within_days'
          value={String(days)}
          onChange={(x) => setParams({ within: x === String(EXPIRING_DAYS) ? undefined : x, page: undefined })}
          options={[...new Set([7, 14, 30, 60, 90, 180, days])].sort((a, b) => a - b).map((d) => ({
            value: String(d),
            label: fmt.int(d),
          }))}
        />
      </div>
      <Loaded load={load} label={t.loadingExpiring}>
        {(r) =>
          r.data.length === 0 ? <Empty>{t.noExpiring}</Empty> : (
            <>
              <div class='table-wrap' tabIndex={0} role='region' aria-label={t.expiringCaption}>
                <table class='expiring'>
                  <caption class='visually-hidden'>{t.expiringCaption}</caption>
                  <thead>
                    <tr>
                      <th scope='col'>{t.product}</th>
                      <th scope='col'>{t.lotNumber}</th>
                      <th scope='col'>{t.expiresOn}</th>
                      <th scope='col'>{t.daysLeft}</th>
                      <th scope='col' class='num'>{t.left}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.data.map((l) => (
                      <tr
                        key={l.inventory_id}
                        data-lot={l.lot_number ?? undefined}
                        class={l.days_left < 0 ? 'expired' : undefined}
                      >
                        <td>
                          <a href={href('inventory', { ...params, id: l.product_id, edit: undefined })}>{l.name}</a>
                          <br />
                          <small class='muted' data-user-text>{l.sku}</small>
                        </td>
                        <td data-user-text>{l.lot_number ?? t.noLotNumber}</td>
                        <td>{fmt.day(l.expires_on)}</td>
                        <td>
                          {l.days_left < 0
                            ? <Badge kind='bad'>{t.daysLeftValue(l.days_left)}</Badge>
                            : t.daysLeftValue(l.days_left)}
                        </td>
                        <td class='num'>{fmt.int(l.available_quantity)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                page={r.pagination.page}
                totalPages={r.pagination.total_pages}
                count={t.lotCount(r.pagination.total_count)}
                label={t.lotPages}
                onPage={(p) => setParams({ page: p })}
              />
            </>
          )}
      </Loaded>
    </section>
  );
}

/** The ledger's rows an order made: their reference is the order's id, shown as its page. */
const SALE_OPERATIONS: string[] = ['sale', 'sale_return'];

function Ledger({ route, id, sku }: { route: Route; id: string; sku: string }) {
  const t = text(inventoryText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.lpage) || 1);
  const operation = enums.stock_operation.find((o) => o === params.op);
  const load = useLoad(
    (signal) =>
      api('get', '/products/{id}/movements', {
        path: { id },
        query: { page: String(page), per_page: String(LEDGER_PAGE), operation },
        signal,
      }),
    [id, page, operation],
    'product',
  );
  return (
    <section aria-label={t.ledger} class='stack'>
      <SelectField
        label={t.operation}
        name='operation'
        value={operation ?? ''}
        onChange={(x) => setParams({ op: x || undefined, lpage: undefined }, true)}
        options={[
          { value: '', label: t.allOperations },
          ...enums.stock_operation.map((o) => ({ value: o, label: t.code(o) })),
        ]}
      />
      <Loaded load={load} label={t.loadingLedger}>
        {(r) =>
          r.data.length === 0 ? <Empty>{t.noMovement(!!operation)}</Empty> : (
            <>
              <div class='table-wrap' tabIndex={0} role='region' aria-label={t.movementsCaption}>
                <table class='ledger' data-total={r.pagination.total_count}>
                  <caption class='visually-hidden'>{t.movementsCaption}</caption>
                  <thead>
                    <tr>
                      <th scope='col'>{t.when}</th>
                      <th scope='col'>{t.operation}</th>
                      <th scope='col' class='num'>{t.change}</th>
                      <th scope='col' class='num'>{t.stock}</th>
                      <th scope='col'>{t.why}</th>
                      <th scope='col'>{t.who}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.data.map((m) => (
                      <tr key={m.id}>
                        <td>{fmt.dateTime(m.created_at)}</td>
                        <td>{t.code(m.operation)}</td>
                        <td class={`num ${m.delta < 0 ? 'negative' : 'positive'}`}>
                          {m.delta > 0 ? `+${m.delta}` : m.delta}
                        </td>
                        <td class='num'>{m.stock_before} → {m.stock_after}</td>
                        <td>
                          {t.code(m.reason ?? m.source)}
                          {m.reason_note && (
                            <>
                              <br />
                              <small class='muted' data-user-text>{m.reason_note}</small>
                            </>
                          )}
                          {m.reference && (
                            <>
                              <br />
                              <small class='muted'>
                                {SALE_OPERATIONS.includes(m.operation)
                                  ? (
                                    <a href={href('orders', { id: m.reference })}>
                                      {t.saleOf(orderReference(m.reference))}
                                    </a>
                                  )
                                  : t.reference(m.reference)}
                              </small>
                            </>
                          )}
                          {m.lot_number && (
                            <>
                              <br />
                              <small class='muted'>
                                {t.lotNumber} <span data-user-text>{m.lot_number}</span>
                              </small>
                            </>
                          )}
                        </td>
                        <td>
                          {m.operator_role === 'service_role'
                            ? text(common).storeJob
                            : m.operator_email
                            ? <span data-user-text>{m.operator_email}</span>
                            : t.anotherUser}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                page={r.pagination.page}
                totalPages={r.pagination.total_pages}
                count={t.movementCount(r.pagination.total_count)}
                label={t.movementPages}
                onPage={(p) => setParams({ lpage: p })}
              />
              <p>
                <CsvButton
                  filename={csvFileName(t.ledgerFile(sku))}
                  columns={movementColumns()}
                  rows={async () => {
                    const rows: Movement[] = [];
                    for (let p = 1;; p++) {
                      const page = await api('get', '/products/{id}/movements', {
                        path: { id },
                        query: { page: String(p), per_page: '200', operation },
                      });
                      rows.push(...page.data);
                      if (p >= page.pagination.total_pages) return rows;
                    }
                  }}
                />
              </p>
            </>
          )}
      </Loaded>
    </section>
  );
}

function StockIns({ route, id, sku }: { route: Route; id: string; sku: string }) {
  const t = text(inventoryText);
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.lpage) || 1);
  const load = useLoad(
    (signal) =>
      api('get', '/products/{id}/stock-ins', {
        path: { id },
        query: { page: String(page), per_page: String(LEDGER_PAGE) },
        signal,
      }),
    [id, page],
    'product',
  );
  return (
    <Loaded load={load} label={t.loadingStockIns}>
      {(r) =>
        r.data.length === 0 ? <Empty>{t.noStockIn}</Empty> : (
          <>
            <div class='table-wrap' tabIndex={0} role='region' aria-label={t.stockInsCaption}>
              <table>
                <caption class='visually-hidden'>{t.stockInsCaption}</caption>
                <thead>
                  <tr>
                    <th scope='col'>{t.received}</th>
                    <th scope='col' class='num'>{t.quantity}</th>
                    <th scope='col'>{t.lotNumber}</th>
                    <th scope='col'>{t.expiresOn}</th>
                    <th scope='col'>{t.source}</th>
                    <th scope='col'>{t.note}</th>
                    <th scope='col'>{t.booked}</th>
                  </tr>
                </thead>
                <tbody>
                  {r.data.map((s) => (
                    <tr key={s.id}>
                      <td>{fmt.dateTime(s.received_at)}</td>
                      <td class='num'>{fmt.int(s.quantity)}</td>
                      <td data-user-text>{s.lot_number ?? t.noLotNumber}</td>
                      <td>{s.expires_on ? fmt.day(s.expires_on) : t.noLotNumber}</td>
                      <td>{t.code(s.source)}</td>
                      <td>{s.note ?? ''}</td>
                      <td>{fmt.dateTime(s.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager
              page={r.pagination.page}
              totalPages={r.pagination.total_pages}
              count={t.stockInCount(r.pagination.total_count)}
              label={t.stockInPages}
              onPage={(p) => setParams({ lpage: p })}
            />
            <p>
              <CsvButton
                filename={csvFileName(t.stockInsFile(sku))}
                columns={stockInColumns()}
                rows={async () => {
                  const rows: StockIn[] = [];
                  for (let p = 1;; p++) {
                    const page = await api('get', '/products/{id}/stock-ins', {
                      path: { id },
                      query: { page: String(p), per_page: '200' },
                    });
                    rows.push(...page.data);
                    if (p >= page.pagination.total_pages) return rows;
                  }
                }}
              />
            </p>
          </>
        )}
    </Loaded>
  );
}

function ProductForm(
  { product, onSaved, onCancel }: { product?: Product; onSaved: (p: { id: string }) => void; onCancel: () => void },
) {
  const t = text(inventoryText);
  const form = useForm({
    sku: product?.sku ?? '',
    name: product?.name ?? '',
    reorder_level: product ? String(product.reorder_level) : '',
    is_active: product?.is_active ?? true,
    allocation: product?.allocation ?? 'fifo',
  });
  const v = form.values;
  return (
    <form
      class='card form'
      ref={form.formRef}
      noValidate
      aria-labelledby='product-form-title'
      onSubmit={(e) => {
        e.preventDefault();
        form.submit(
          async () => {
            const reorder = v.reorder_level.trim() === '' ? undefined : Number(v.reorder_level);
            const body = {
              sku: v.sku,
              name: v.name,
              reorder_level: reorder,
              is_active: v.is_active,
              allocation: v.allocation,
            };
            const saved = product
              ? (await api('put', '/products/{id}', { path: { id: product.id }, body })).data
              : (await api('post', '/products', { body })).data;
            onSaved(saved);
          },
          {},
          (x) => ({
            sku: checks.required(x.sku),
            name: checks.required(x.name),
            reorder_level: checks.integer(x.reorder_level, 0, MAX_REORDER_LEVEL),
          }),
        );
      }}
    >
      <h3 id='product-form-title'>{product ? t.editSku(product.sku) : t.newProduct}</h3>
      <FormError message={form.formError} />
      <div class='grid'>
        <Field
          label={t.sku}
          name='sku'
          value={v.sku}
          error={form.errors.sku}
          onInput={(e) => form.set('sku', e.currentTarget.value)}
        />
        <Field
          label={t.name}
          name='name'
          value={v.name}
          error={form.errors.name}
          onInput={(e) => form.set('name', e.currentTarget.value)}
        />
        <Field
          label={t.reorderLevel}
          name='reorder_level'
          inputMode='numeric'
          value={v.reorder_level}
          error={form.errors.reorder_level}
          hint={product ? t.reorderHintEdit : t.reorderHintNew}
          onInput={(e) => form.set('reorder_level', e.currentTarget.value)}
        />
        <SelectField
          label={t.allocation}
          name='allocation'
          value={v.allocation}
          error={form.errors.allocation}
          onChange={(x) => form.set('allocation', x as typeof v.allocation)}
          options={enums.stock_allocation.map((a) => ({ value: a, label: t.code(a) }))}
        />
      </div>
      <label class='checkbox'>
        <input
          type='checkbox'
          name='is_active'
          checked={v.is_active}
          onChange={(e) => form.set('is_active', e.currentTarget.checked)}
        />{' '}
        {t.activeOnSale}
      </label>
      <div class='actions'>
        <button type='submit' class='primary' disabled={form.pending}>
          {form.pending ? text(common).saving : product ? t.saveProduct : t.createProduct}
        </button>
        <button type='button' onClick={onCancel}>{t.cancel}</button>
      </div>
    </form>
  );
}

function DeleteProduct({ product, onDone }: { product: Product; onDone: () => void }) {
  const t = text(inventoryText);
  return (
    <ConfirmButton
      label={t.deleteProduct}
      question={t.deleteQuestion(product.sku)}
      yes={t.yesDelete}
      onConfirm={async () => {
        await api('delete', '/products/{id}', { path: { id: product.id } });
        onDone();
      }}
    />
  );
}
