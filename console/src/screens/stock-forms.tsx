import { useRef } from 'preact/hooks';
import { api } from '../api/client.ts';
import { enums } from '../api/enums.ts';
import { checks, Field, FormError, newIdempotencyKey, SelectField, useForm } from '../components/form.tsx';
import { useLoad } from '../components/load.tsx';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { fromStoreWall } from '../format.tsx';
import { inventoryText } from '../i18n/inventory.ts';

/** The API's confirmation, with the new stock when it does not already say it. */
const withStock = (message: string, stock: number) =>
  (message.includes(String(stock)) ? message : `${message} ${text(inventoryText).stockNow(stock)}`);

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
  const t = text(inventoryText);
  const form = useForm({ product_id: productId ?? '', quantity: '', source: 'manual_stock_in', note: '', received_at: '' });
  const key = useIdempotencyKey();
  const v = form.values;
  const set = (name: keyof typeof v, value: string) => { key.renew(); form.set(name, value); };
  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="stock-in-title" data-form="stock-in" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        // The time typed is the store's clock, not this device's.
        const received = v.received_at ? fromStoreWall(v.received_at) : null;
        const r = await api('post', '/stock-in', {
          body: {
            product_id: productId ?? v.product_id.trim(),
            quantity: v.quantity.trim() === '' ? (undefined as unknown as number) : Number(v.quantity),
            source: v.source as (typeof enums.stock_in_source)[number],
            note: v.note || undefined,
            received_at: received ?? (v.received_at || undefined),
          },
          headers: { 'Idempotency-Key': key.get() },
        });
        key.renew();
        form.setValues((x) => ({ ...x, quantity: '', note: '', received_at: '' }));
        onDone(withStock(r.message, r.current_stock));
      }, {}, (x) => ({
        product_id: productId ? '' : checks.required(x.product_id),
        quantity: checks.required(x.quantity) || checks.integer(x.quantity, 1, 1_000_000_000),
      }));
    }}>
      <h3 id="stock-in-title">{t.stockIn}</h3>
      <FormError message={form.formError} />
      <div class="grid">
        {!productId && <Field label={t.productId} name="product_id" value={v.product_id} error={form.errors.product_id} onInput={(e) => set('product_id', e.currentTarget.value)} />}
        <Field label={t.quantityReceived} name="quantity" inputMode="numeric" value={v.quantity} error={form.errors.quantity}
          hint={t.quantityHint} onInput={(e) => set('quantity', e.currentTarget.value)} />
        <SelectField label={t.source} name="source" value={v.source} error={form.errors.source} onChange={(x) => set('source', x)}
          options={enums.stock_in_source.map((s) => ({ value: s, label: t.code(s) }))} />
        <Field label={t.receivedAt} name="received_at" type="datetime-local" value={v.received_at} error={form.errors.received_at}
          hint={t.receivedAtHint} onInput={(e) => set('received_at', e.currentTarget.value)} />
      </div>
      <Field label={t.note} name="note" value={v.note} error={form.errors.note} onInput={(e) => set('note', e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? t.booking : t.bookStockIn}</button>
      </div>
    </form>
  );
}

export function StockAdjustForm({ productId, lots, onDone }: {
  productId?: string;
  lots?: { id: string; label: string }[];
  onDone: (message: string, undo?: { label: string; run: () => Promise<string> }) => void;
}) {
  const t = text(inventoryText);
  const form = useForm({ product_id: productId ?? '', inventory_id: '', adjust_quantity: '', reason: '', reason_note: '', source: 'manual_adjustment' });
  const key = useIdempotencyKey();
  const v = form.values;
  const set = (name: keyof typeof v, value: string) => { key.renew(); form.set(name, value); };
  const amount = Number(v.adjust_quantity);
  // The API's rules for each reason (which way it may move stock, whether it needs a note): the form
  // offers only the reasons the change can take.
  const rules = useLoad((signal) => api('get', '/stock-adjust/reasons', { signal }).then((r) => r.data.reasons), []).data ?? [];
  const reasons = rules
    .filter((r) => !(amount > 0 && r.direction === 'decrease') && !(amount < 0 && r.direction === 'increase'))
    .map((r) => r.reason);
  return (
    <form class="card form" ref={form.formRef} noValidate aria-labelledby="stock-adjust-title" data-form="stock-adjust" onSubmit={(e) => {
      e.preventDefault();
      form.submit(async () => {
        const target = v.inventory_id ? { inventory_id: v.inventory_id } : { product_id: productId ?? v.product_id.trim() };
        const r = await api('post', '/stock-adjust', {
          body: {
            ...target,
            adjust_quantity: v.adjust_quantity.trim() === '' ? (undefined as unknown as number) : Number(v.adjust_quantity),
            reason: (v.reason || undefined) as (typeof enums.stock_adjust_reason)[number],
            reason_note: v.reason_note || undefined,
            source: v.source as (typeof enums.stock_adjust_source)[number],
          },
          headers: { 'Idempotency-Key': key.get() },
        });
        key.renew();
        form.setValues((x) => ({ ...x, adjust_quantity: '', reason: '', reason_note: '' }));
        // Undone by the opposite change, on the same product or lot, with its reason said.
        const opposite = -Number(v.adjust_quantity);
        onDone(withStock(r.message, r.current_stock), {
          label: t.undoAdjustment(opposite),
          run: async () => {
            const undone = await api('post', '/stock-adjust', {
              body: { ...target, adjust_quantity: opposite, reason: 'other', reason_note: t.undoNote(v.adjust_quantity), source: 'manual_adjustment' },
              headers: { 'Idempotency-Key': newIdempotencyKey() },
            });
            return withStock(undone.message, undone.current_stock);
          },
        });
      }, { inventory_id: 'inventory_id' }, (x) => ({
        adjust_quantity: checks.required(x.adjust_quantity) || checks.integer(x.adjust_quantity, -1_000_000_000, 1_000_000_000) ||
          (Number(x.adjust_quantity) === 0 ? text(common).notZero : ''),
        reason: checks.required(x.reason),
        reason_note: rules.find((r) => r.reason === x.reason)?.needs_note && !x.reason_note.trim() ? text(common).noteForOther : '',
      }));
    }}>
      <h3 id="stock-adjust-title">{t.adjustStock}</h3>
      <FormError message={form.formError} />
      <div class="grid">
        {!productId && <Field label={t.productId} name="product_id" value={v.product_id} error={form.errors.product_id} onInput={(e) => set('product_id', e.currentTarget.value)} />}
        {lots && lots.length > 0 && (
          <SelectField label={t.lot} name="inventory_id" value={v.inventory_id} error={form.errors.inventory_id} onChange={(x) => set('inventory_id', x)}
            hint={t.lotHint}
            options={[{ value: '', label: t.wholeProduct }, ...lots.map((l) => ({ value: l.id, label: l.label }))]} />
        )}
        <Field label={t.adjustChange} name="adjust_quantity" inputMode="numeric" value={v.adjust_quantity} error={form.errors.adjust_quantity}
          hint={t.adjustHint} onInput={(e) => set('adjust_quantity', e.currentTarget.value)} />
        <SelectField label={t.reason} name="reason" value={v.reason} error={form.errors.reason} onChange={(x) => set('reason', x)}
          options={[{ value: '', label: t.chooseReason }, ...reasons.map((r) => ({ value: r, label: t.code(r) }))]} />
        <SelectField label={t.source} name="source" value={v.source} error={form.errors.source} onChange={(x) => set('source', x)}
          options={enums.stock_adjust_source.map((s) => ({ value: s, label: t.code(s) }))} />
      </div>
      <Field label={t.reasonNote} name="reason_note" value={v.reason_note} error={form.errors.reason_note}
        hint={t.reasonNoteHint} onInput={(e) => set('reason_note', e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.pending}>{form.pending ? t.booking : t.bookAdjustment}</button>
      </div>
    </form>
  );
}
