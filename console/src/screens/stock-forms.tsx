import { useRef } from 'preact/hooks';
import { api } from '../api/client.ts';
import { Field, FormError, newIdempotencyKey, SelectField, useForm } from '../components/form.tsx';

const STOCK_IN_SOURCES = ['manual_stock_in', 'purchase_order', 'return_goods', 'transfer_in', 'production_complete', 'supplier_direct', 'other'] as const;
const INCREASE_REASONS = ['inventory_audit_increase', 'return_goods', 'supplier_compensation', 'miscount_correction'] as const;
const DECREASE_REASONS = ['inventory_audit_decrease', 'damage_writeoff', 'expired_removal', 'loss_theft', 'quality_issue'] as const;
const ADJUST_SOURCES = ['manual_adjustment', 'inventory_count', 'system_correction', 'other'] as const;
const words = (code: string) => code.replace(/_/g, ' ');
/** The API's confirmation, with the new stock when it does not already say it. */
const withStock = (message: string, stock: number) => (message.includes(String(stock)) ? message : `${message} Stock is now ${stock}.`);

/**
 * One Idempotency-Key per intended booking: kept while the same values are sent again (a double click, a
 * retry after a lost answer), so the API books once and replays its answer; a new one once the values
 * change or the booking succeeded.
 */
function useIdempotencyKey() {
  const key = useRef(newIdempotencyKey());
  return { get: () => key.current, renew: () => (key.current = newIdempotencyKey()) };
}

export function StockInForm({ productId, onDone }: { productId?: string; onDone: (message: string) => void }) {
  const form = useForm({ product_id: productId ?? '', quantity: '', source: 'manual_stock_in', note: '', received_at: '' });
  const key = useIdempotencyKey();
  const v = form.values;
  const set = (name: keyof typeof v, value: string) => { key.renew(); form.set(name, value); };
  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="stock-in-title" data-form="stock-in" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        const received = v.received_at ? new Date(v.received_at) : undefined;
        const r = await api('post', '/stock-in', {
          body: {
            product_id: productId ?? v.product_id.trim(),
            quantity: v.quantity.trim() === '' ? (undefined as unknown as number) : Number(v.quantity),
            source: v.source as (typeof STOCK_IN_SOURCES)[number],
            note: v.note || undefined,
            received_at: received && !Number.isNaN(received.getTime()) ? received.toISOString() : v.received_at || undefined,
          },
          headers: { 'Idempotency-Key': key.get() },
        });
        key.renew();
        form.setValues((x) => ({ ...x, quantity: '', note: '', received_at: '' }));
        onDone(withStock(r.message, r.current_stock));
      });
    }}>
      <h3 id="stock-in-title">Stock in</h3>
      <FormError message={form.formError} />
      <div class="grid">
        {!productId && <Field label="Product ID" name="product_id" value={v.product_id} error={form.errors.product_id} onInput={(e) => set('product_id', e.currentTarget.value)} />}
        <Field label="Quantity received" name="quantity" inputMode="numeric" value={v.quantity} error={form.errors.quantity}
          hint="1 to 1,000,000,000" onInput={(e) => set('quantity', e.currentTarget.value)} />
        <SelectField label="Source" name="source" value={v.source} error={form.errors.source} onChange={(x) => set('source', x)}
          options={STOCK_IN_SOURCES.map((s) => ({ value: s, label: words(s) }))} />
        <Field label="Received at" name="received_at" type="datetime-local" value={v.received_at} error={form.errors.received_at}
          hint="Empty: now. Older goods are drawn first (FIFO)." onInput={(e) => set('received_at', e.currentTarget.value)} />
      </div>
      <Field label="Note" name="note" value={v.note} error={form.errors.note} onInput={(e) => set('note', e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? 'Booking…' : 'Book stock-in'}</button>
      </div>
    </form>
  );
}

export function StockAdjustForm({ productId, lots, onDone }: {
  productId?: string;
  lots?: { id: string; label: string }[];
  onDone: (message: string) => void;
}) {
  const form = useForm({ product_id: productId ?? '', inventory_id: '', adjust_quantity: '', reason: '', reason_note: '', source: 'manual_adjustment' });
  const key = useIdempotencyKey();
  const v = form.values;
  const set = (name: keyof typeof v, value: string) => { key.renew(); form.set(name, value); };
  const amount = Number(v.adjust_quantity);
  const reasons = [...(amount < 0 ? [] : INCREASE_REASONS), ...(amount > 0 ? [] : DECREASE_REASONS), 'other'];
  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="stock-adjust-title" data-form="stock-adjust" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        const target = v.inventory_id ? { inventory_id: v.inventory_id } : { product_id: productId ?? v.product_id.trim() };
        const r = await api('post', '/stock-adjust', {
          body: {
            ...target,
            adjust_quantity: v.adjust_quantity.trim() === '' ? (undefined as unknown as number) : Number(v.adjust_quantity),
            reason: (v.reason || undefined) as (typeof INCREASE_REASONS)[number],
            reason_note: v.reason_note || undefined,
            source: v.source as (typeof ADJUST_SOURCES)[number],
          },
          headers: { 'Idempotency-Key': key.get() },
        });
        key.renew();
        form.setValues((x) => ({ ...x, adjust_quantity: '', reason: '', reason_note: '' }));
        onDone(withStock(r.message, r.current_stock));
      }, { inventory_id: 'inventory_id' });
    }}>
      <h3 id="stock-adjust-title">Adjust stock</h3>
      <FormError message={form.formError} />
      <div class="grid">
        {!productId && <Field label="Product ID" name="product_id" value={v.product_id} error={form.errors.product_id} onInput={(e) => set('product_id', e.currentTarget.value)} />}
        {lots && lots.length > 0 && (
          <SelectField label="Lot" name="inventory_id" value={v.inventory_id} error={form.errors.inventory_id} onChange={(x) => set('inventory_id', x)}
            hint="The whole product draws oldest lots first; a lot adjusts that lot alone."
            options={[{ value: '', label: 'Whole product' }, ...lots.map((l) => ({ value: l.id, label: l.label }))]} />
        )}
        <Field label="Change (+ or −)" name="adjust_quantity" inputMode="numeric" value={v.adjust_quantity} error={form.errors.adjust_quantity}
          hint="e.g. 5 or -3" onInput={(e) => set('adjust_quantity', e.currentTarget.value)} />
        <SelectField label="Reason" name="reason" value={v.reason} error={form.errors.reason} onChange={(x) => set('reason', x)}
          options={[{ value: '', label: 'Choose a reason' }, ...reasons.map((r) => ({ value: r, label: words(r) }))]} />
        <SelectField label="Source" name="source" value={v.source} error={form.errors.source} onChange={(x) => set('source', x)}
          options={ADJUST_SOURCES.map((s) => ({ value: s, label: words(s) }))} />
      </div>
      <Field label="Reason note" name="reason_note" value={v.reason_note} error={form.errors.reason_note}
        hint="Required for “other”." onInput={(e) => set('reason_note', e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? 'Booking…' : 'Book adjustment'}</button>
      </div>
    </form>
  );
}
