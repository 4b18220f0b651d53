import { useEffect, useState } from 'preact/hooks';
import { api, type Ok } from '../api/client.ts';
import type { paths } from '../api/openapi.gen.ts';
import { ConfirmButton } from '../components/confirm.tsx';
import { Field, FormError, Pager, SelectField, useForm } from '../components/form.tsx';
import { Empty, Loaded, useLoad } from '../components/load.tsx';
import { ScreenHeader, Tabs } from '../components/screen.tsx';
import { Badge, fmt } from '../format.tsx';
import { href, useParams, type Route } from '../router.ts';
import { StockAdjustForm, StockInForm } from './stock-forms.tsx';

type Product = Ok<paths['/products/{id}']['get']>['data'];
const PAGE_SIZE = 25;
const LEDGER_PAGE = 20;
const words = (code: string | null) => (code ? code.replace(/_/g, ' ') : '—');

export function InventoryScreen({ route, isAdmin }: { route: Route; isAdmin: boolean }) {
  const [params, setParams] = useParams(route);
  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  return (
    <section class="stack">
      <ScreenHeader title="Inventory" lead="Products and their stock; receive goods and adjust stock, every booking lands in the product's ledger.">
        {isAdmin && <a class="button primary" href={href('inventory', { ...params, id: undefined, edit: 'new' })}>New product</a>}
      </ScreenHeader>
      {isAdmin && params.edit === 'new' && (
        <ProductForm onSaved={(p) => { changed(); setParams({ edit: undefined, id: p.id }); }} onCancel={() => setParams({ edit: undefined })} />
      )}
      <div class={params.id ? 'two-columns inventory-layout' : ''}>
        <ProductList route={route} version={version} />
        {params.id && <ProductDetail key={params.id} route={route} isAdmin={isAdmin} onChanged={changed} />}
      </div>
    </section>
  );
}

function ProductList({ route, version }: { route: Route; version: number }) {
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.page) || 1);
  const low = params.low === '1';
  const [search, setSearch] = useState(params.search ?? '');
  useEffect(() => {
    if ((params.search ?? '') === search) return;
    const timer = setTimeout(() => setParams({ search: search || undefined, page: undefined }, true), 300);
    return () => clearTimeout(timer);
  }, [search]);
  useEffect(() => setSearch(params.search ?? ''), [params.search]);

  const list = useLoad((signal) => api('get', '/products', {
    query: { search: params.search, low_stock: low ? 'true' : undefined, page: String(page), per_page: String(PAGE_SIZE), sort_by: 'name', sort_order: 'asc' },
    signal,
  }), [params.search, low, page, version]);

  return (
    <section class="stack" aria-labelledby="products-title">
      <h2 id="products-title" class="visually-hidden">Products</h2>
      <form class="filters" role="search" aria-label="Filter products" onSubmit={(e) => { e.preventDefault(); setParams({ search: search || undefined, page: undefined }); }}>
        <Field label="Search" name="search" type="search" placeholder="SKU or name" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <label class="checkbox filter-check">
          <input type="checkbox" name="low_stock" checked={low} onChange={(e) => setParams({ low: e.currentTarget.checked ? '1' : undefined, page: undefined })} /> Low stock only
        </label>
      </form>
      <Loaded load={list} label="Loading products…">
        {(r) => r.data.length === 0 ? (
          <Empty>{params.search || low ? 'No product matches these filters.' : 'There are no products yet.'}</Empty>
        ) : (
          <>
            <div class="table-wrap">
              <table class="products">
                <caption class="visually-hidden">Products and their stock</caption>
                <thead><tr><th scope="col">Product</th><th scope="col" class="num">Stock</th><th scope="col" class="num">Reorder at</th><th scope="col">State</th></tr></thead>
                <tbody>
                  {r.data.map((p) => (
                    <tr key={p.id} aria-current={p.id === params.id ? 'true' : undefined} data-sku={p.sku}>
                      <td><a href={href('inventory', { ...params, id: p.id, edit: undefined })}>{p.name}</a><br /><small class="muted">{p.sku}</small></td>
                      <td class="num" data-stock>{fmt.int(p.current_stock)}</td>
                      <td class="num">{fmt.int(p.reorder_level)}</td>
                      <td>
                        {p.low_stock && <Badge kind="bad">low</Badge>} {!p.is_active && <Badge kind="completed">inactive</Badge>}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={r.pagination.page} totalPages={r.pagination.total_pages} count={`${fmt.int(r.pagination.total_count)} products`} label="products pages" onPage={(p) => setParams({ page: p })} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function ProductDetail({ route, isAdmin, onChanged }: { route: Route; isAdmin: boolean; onChanged: () => void }) {
  const [params, setParams] = useParams(route);
  const id = params.id;
  const [version, setVersion] = useState(0);
  const [message, setMessage] = useState('');
  const product = useLoad((signal) => api('get', '/products/{id}', { path: { id }, signal }).then((r) => r.data), [id, version]);
  const booked = (text: string) => { setMessage(text); setVersion((v) => v + 1); onChanged(); };
  const tab = params.tab === 'stock-ins' ? 'stock-ins' : 'ledger';
  return (
    <section class="card detail stack" aria-labelledby="product-title">
      <Loaded load={product} label="Loading the product…">
        {(p) => (
          <>
            <div class="detail-head">
              <h2 id="product-title">{p.name} <small class="muted">{p.sku}</small></h2>
              <a href={href('inventory', { ...params, id: undefined, edit: undefined, tab: undefined, lpage: undefined })}>Close</a>
            </div>
            <p class="stock-line">
              <span class="big" data-testid="current-stock">{fmt.int(p.current_stock)}</span> in stock · reorder at {fmt.int(p.reorder_level)}{' '}
              {p.low_stock && <Badge kind="bad">low stock</Badge>} {!p.is_active && <Badge kind="completed">inactive</Badge>}
            </p>
            {message && <p class="state success" role="status">{message}</p>}
            {isAdmin && params.edit === p.id ? (
              <ProductForm product={p} onSaved={() => { setParams({ edit: undefined }); booked('Product saved.'); }} onCancel={() => setParams({ edit: undefined })} />
            ) : isAdmin && (
              <div class="actions">
                <a class="button" href={href('inventory', { ...params, edit: p.id })}>Edit product</a>
                <DeleteProduct product={p} onDone={() => { onChanged(); setParams({ id: undefined }); }} />
              </div>
            )}
            <Lots product={p} />
            <div class="two-columns">
              <StockInForm productId={p.id} onDone={booked} />
              <StockAdjustForm productId={p.id} onDone={booked}
                lots={p.lots.map((l) => ({ id: l.inventory_id, label: `${l.received_at.slice(0, 10)} · ${l.available_quantity}/${l.quantity} left` }))} />
            </div>
            <Tabs label="Product history" current={tab} tabs={[
              { id: 'ledger', label: 'Movement ledger', href: href('inventory', { ...params, tab: undefined }) },
              { id: 'stock-ins', label: 'Stock-in history', href: href('inventory', { ...params, tab: 'stock-ins', lpage: undefined }) },
            ]} />
            {tab === 'ledger' ? <Ledger route={route} id={p.id} version={version} /> : <StockIns route={route} id={p.id} version={version} />}
          </>
        )}
      </Loaded>
    </section>
  );
}

function Lots({ product }: { product: Product }) {
  return (
    <section aria-labelledby="lots-title">
      <h3 id="lots-title">Lots <span class="muted">(oldest first: the order stock is drawn)</span></h3>
      {product.lots.length === 0 ? <Empty>No lot: this product has never been stocked.</Empty> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Received</th><th scope="col" class="num">Left</th><th scope="col" class="num">Received qty</th><th scope="col">Source</th><th scope="col">Note</th></tr></thead>
            <tbody>
              {product.lots.map((l) => (
                <tr key={l.inventory_id}>
                  <td>{fmt.dateTime(l.received_at)}</td>
                  <td class="num">{fmt.int(l.available_quantity)}</td>
                  <td class="num">{fmt.int(l.quantity)}</td>
                  <td>{words(l.source)}</td>
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

function Ledger({ route, id, version }: { route: Route; id: string; version: number }) {
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.lpage) || 1);
  const operation = ['stock_in', 'stock_adjust', 'stock_out'].includes(params.op) ? (params.op as 'stock_in') : undefined;
  const load = useLoad((signal) => api('get', '/products/{id}/movements', { path: { id }, query: { page: String(page), per_page: String(LEDGER_PAGE), operation }, signal }), [id, page, operation, version]);
  return (
    <section aria-label="Movement ledger" class="stack">
      <SelectField label="Operation" name="operation" value={operation ?? ''} onChange={(x) => setParams({ op: x || undefined, lpage: undefined }, true)}
        options={[{ value: '', label: 'All operations' }, { value: 'stock_in', label: 'stock in' }, { value: 'stock_adjust', label: 'stock adjust' }, { value: 'stock_out', label: 'stock out' }]} />
      <Loaded load={load} label="Loading the ledger…">
        {(r) => r.data.length === 0 ? <Empty>No movement recorded{operation ? ' for this operation' : ''}.</Empty> : (
          <>
            <div class="table-wrap">
              <table class="ledger" data-total={r.pagination.total_count}>
                <caption class="visually-hidden">Movements, newest first</caption>
                <thead><tr><th scope="col">When</th><th scope="col">Operation</th><th scope="col" class="num">Change</th><th scope="col" class="num">Stock</th><th scope="col">Why</th><th scope="col">Who</th></tr></thead>
                <tbody>
                  {r.data.map((m) => (
                    <tr key={m.id}>
                      <td>{fmt.dateTime(m.created_at)}</td>
                      <td>{words(m.operation)}</td>
                      <td class={`num ${m.delta < 0 ? 'negative' : 'positive'}`}>{m.delta > 0 ? `+${m.delta}` : m.delta}</td>
                      <td class="num">{m.stock_before} → {m.stock_after}</td>
                      <td>{words(m.reason ?? m.source)}{m.reason_note && <><br /><small class="muted">{m.reason_note}</small></>}{m.reference && <><br /><small class="muted">ref {m.reference}</small></>}</td>
                      <td>{m.operator_role === 'service_role' ? 'service key' : m.operator_id ? `user ${m.operator_id.slice(0, 8)}…` : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <Pager page={r.pagination.page} totalPages={r.pagination.total_pages} count={`${fmt.int(r.pagination.total_count)} movements`} label="movements pages" onPage={(p) => setParams({ lpage: p })} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function StockIns({ route, id, version }: { route: Route; id: string; version: number }) {
  const [params, setParams] = useParams(route);
  const page = Math.max(1, Number(params.lpage) || 1);
  const load = useLoad((signal) => api('get', '/products/{id}/stock-ins', { path: { id }, query: { page: String(page), per_page: String(LEDGER_PAGE) }, signal }), [id, page, version]);
  return (
    <Loaded load={load} label="Loading the stock-in history…">
      {(r) => r.data.length === 0 ? <Empty>No stock-in recorded.</Empty> : (
        <>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Stock-ins, newest first</caption>
              <thead><tr><th scope="col">Received</th><th scope="col" class="num">Quantity</th><th scope="col">Source</th><th scope="col">Note</th><th scope="col">Booked</th></tr></thead>
              <tbody>
                {r.data.map((s) => (
                  <tr key={s.id}>
                    <td>{fmt.dateTime(s.received_at)}</td>
                    <td class="num">{fmt.int(s.quantity)}</td>
                    <td>{words(s.source)}</td>
                    <td>{s.note ?? ''}</td>
                    <td>{fmt.dateTime(s.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={r.pagination.page} totalPages={r.pagination.total_pages} count={`${fmt.int(r.pagination.total_count)} stock-ins`} label="stock-ins pages" onPage={(p) => setParams({ lpage: p })} />
        </>
      )}
    </Loaded>
  );
}

function ProductForm({ product, onSaved, onCancel }: { product?: Product; onSaved: (p: { id: string }) => void; onCancel: () => void }) {
  const form = useForm({ sku: product?.sku ?? '', name: product?.name ?? '', reorder_level: product ? String(product.reorder_level) : '', is_active: product?.is_active ?? true });
  const v = form.values;
  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="product-form-title" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        const reorder = v.reorder_level.trim() === '' ? undefined : Number(v.reorder_level);
        const body = { sku: v.sku, name: v.name, reorder_level: reorder, is_active: v.is_active };
        const saved = product
          ? (await api('put', '/products/{id}', { path: { id: product.id }, body })).data
          : (await api('post', '/products', { body })).data;
        onSaved(saved);
      });
    }}>
      <h3 id="product-form-title">{product ? `Edit ${product.sku}` : 'New product'}</h3>
      <FormError message={form.formError} />
      <div class="grid">
        <Field label="SKU" name="sku" value={v.sku} error={form.errors.sku} onInput={(e) => form.set('sku', e.currentTarget.value)} />
        <Field label="Name" name="name" value={v.name} error={form.errors.name} onInput={(e) => form.set('name', e.currentTarget.value)} />
        <Field label="Reorder level" name="reorder_level" inputMode="numeric" value={v.reorder_level} error={form.errors.reorder_level}
          hint={product ? 'Low stock at or below this' : 'Empty: the default (10)'} onInput={(e) => form.set('reorder_level', e.currentTarget.value)} />
      </div>
      <label class="checkbox"><input type="checkbox" name="is_active" checked={v.is_active} onChange={(e) => form.set('is_active', e.currentTarget.checked)} /> Active (on sale)</label>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? 'Saving…' : product ? 'Save product' : 'Create product'}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}

function DeleteProduct({ product, onDone }: { product: Product; onDone: () => void }) {
  return (
    <ConfirmButton label="Delete product" question={`Delete ${product.sku}? It leaves the catalogue; its stock history stays in the ledger.`}
      yes="Yes, delete" onConfirm={async () => {
        await api('delete', '/products/{id}', { path: { id: product.id } });
        onDone();
      }} />
  );
}
