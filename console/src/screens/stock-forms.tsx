import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import { enums } from '../api/enums.ts';
import { checks, Field, FormError, newIdempotencyKey, SelectField, useForm } from '../components/form.tsx';
import { changed, useLoad } from '../components/load.tsx';
import { STOCK } from '../components/live.ts';
import { common } from '../i18n/common.ts';
import { text } from '../i18n/index.ts';
import { fromStoreWall } from '../format/store-time.ts';
import { inventoryText } from '../i18n/inventory.ts';
import { MAX_MONEY } from '../../../supabase/functions/_shared/money.ts';
import { Limits } from '../../../supabase/functions/_shared/database.types.ts';

/**
 * One Idempotency-Key per intended booking: kept while the same values are sent again (a double click, a
 * retry after a lost answer), so the API books once and replays its answer; a new one once the values
 * change or the booking succeeded.
 */
function useIdempotencyKey() {
  const key = useRef(newIdempotencyKey());
  return { get: () => key.current, renew: () => (key.current = newIdempotencyKey()) };
}

export function StockInForm(
  { productId, productName, onDone }: { productId?: string; productName?: string; onDone: (message: string) => void },
) {
  const t = text(inventoryText);
  const form = useForm({
    product_id: productId ?? '',
    quantity: '',
    source: 'manual_stock_in',
    note: '',
    received_at: '',
    lot_number: '',
    expires_on: '',
    unit_cost: '',
  });
  const key = useIdempotencyKey();
  const v = form.values;
  const set = (name: keyof typeof v, value: string) => {
    key.renew();
    form.set(name, value);
  };
  return (
    <form
      class='card form'
      ref={form.formRef}
      noValidate
      aria-labelledby='stock-in-title'
      data-form='stock-in'
      onSubmit={(e) => {
        e.preventDefault();
        form.submit(
          async () => {
            // The time typed is the store's clock, not this device's.
            const received = v.received_at ? fromStoreWall(v.received_at) : null;
            const r = await api('post', '/stock-in', {
              body: {
                product_id: productId ?? v.product_id.trim(),
                quantity: v.quantity.trim() === '' ? (undefined as unknown as number) : Number(v.quantity),
                source: v.source as (typeof enums.stock_in_source)[number],
                note: v.note || undefined,
                received_at: received ?? (v.received_at || undefined),
                lot_number: v.lot_number.trim() || undefined,
                expires_on: v.expires_on || undefined,
                unit_cost: v.unit_cost.trim() === '' ? undefined : Number(v.unit_cost),
              },
              headers: { 'Idempotency-Key': key.get() },
            });
            key.renew();
            form.setValues((x) => ({
              ...x,
              quantity: '',
              note: '',
              received_at: '',
              lot_number: '',
              expires_on: '',
              unit_cost: '',
            }));
            onDone(t.stockedIn(r.quantity, productName, r.current_stock));
          },
          {},
          (x) => ({
            product_id: productId ? '' : checks.required(x.product_id),
            quantity: checks.required(x.quantity) || checks.integer(x.quantity, 1, Limits.stock_quantity),
            unit_cost: checks.decimal(x.unit_cost, 0, MAX_MONEY),
          }),
        );
      }}
    >
      <h3 id='stock-in-title'>{t.stockIn}</h3>
      <FormError message={form.formError} />
      <div class='grid'>
        {!productId && (
          <Field
            label={t.productId}
            name='product_id'
            value={v.product_id}
            error={form.errors.product_id}
            onInput={(e) => set('product_id', e.currentTarget.value)}
          />
        )}
        <Field
          label={t.quantityReceived}
          name='quantity'
          inputMode='numeric'
          value={v.quantity}
          error={form.errors.quantity}
          hint={t.quantityHint}
          onInput={(e) => set('quantity', e.currentTarget.value)}
        />
        <SelectField
          label={t.source}
          name='source'
          value={v.source}
          error={form.errors.source}
          onChange={(x) => set('source', x)}
          options={enums.stock_in_source.map((s) => ({ value: s, label: t.code(s) }))}
        />
        <Field
          label={t.receivedAt}
          name='received_at'
          type='datetime-local'
          value={v.received_at}
          error={form.errors.received_at}
          hint={t.receivedAtHint}
          onInput={(e) => set('received_at', e.currentTarget.value)}
        />
        <Field
          label={t.lotNumber}
          name='lot_number'
          value={v.lot_number}
          error={form.errors.lot_number}
          maxLength={64}
          onInput={(e) => set('lot_number', e.currentTarget.value)}
        />
        <Field
          label={t.expiresOn}
          name='expires_on'
          type='date'
          value={v.expires_on}
          error={form.errors.expires_on}
          hint={t.expiresHint}
          onInput={(e) => set('expires_on', e.currentTarget.value)}
        />
        <Field
          label={t.unitCost}
          name='unit_cost'
          inputMode='decimal'
          value={v.unit_cost}
          error={form.errors.unit_cost}
          hint={t.unitCostHint}
          onInput={(e) => set('unit_cost', e.currentTarget.value)}
        />
      </div>
      <Field
        label={t.note}
        name='note'
        value={v.note}
        error={form.errors.note}
        onInput={(e) => set('note', e.currentTarget.value)}
      />
      <div class='actions'>
        <button type='submit' class='primary' disabled={form.pending}>
          {form.pending ? t.booking : t.bookStockIn}
        </button>
      </div>
    </form>
  );
}

export function StockAdjustForm({ productId, productName, lots, onDone }: {
  productId?: string;
  productName?: string;
  lots?: { id: string; label: string }[];
  onDone: (message: string, undo?: { label: string; run: () => Promise<string> }) => void;
}) {
  const t = text(inventoryText);
  const form = useForm({
    product_id: productId ?? '',
    inventory_id: '',
    adjust_quantity: '',
    reason: '',
    reason_note: '',
    source: 'manual_adjustment',
  });
  const key = useIdempotencyKey();
  const v = form.values;
  const set = (name: keyof typeof v, value: string) => {
    key.renew();
    form.set(name, value);
  };
  const amount = Number(v.adjust_quantity);
  // The API's rules for each reason (which way it may move stock, whether it needs a note): the form
  // offers only the reasons the change can take.
  const rules =
    useLoad((signal) => api('get', '/stock-adjust/reasons', { signal }).then((r) => r.data.reasons), []).data ?? [];
  const reasons = rules
    .filter((r) => !(amount > 0 && r.direction === 'decrease') && !(amount < 0 && r.direction === 'increase'))
    .map((r) => r.reason);
  return (
    <form
      class='card form'
      ref={form.formRef}
      noValidate
      aria-labelledby='stock-adjust-title'
      data-form='stock-adjust'
      onSubmit={(e) => {
        e.preventDefault();
        form.submit(
          async () => {
            const target = v.inventory_id
              ? { inventory_id: v.inventory_id }
              : { product_id: productId ?? v.product_id.trim() };
            const r = await api('post', '/stock-adjust', {
              body: {
                ...target,
                adjust_quantity: v.adjust_quantity.trim() === ''
                  ? (undefined as unknown as number)
                  : Number(v.adjust_quantity),
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
            onDone(t.adjusted(r.adjustment_quantity, productName, t.code(r.reason), r.current_stock), {
              label: t.undoAdjustment(opposite),
              run: async () => {
                const undone = await api('post', '/stock-adjust', {
                  body: {
                    ...target,
                    adjust_quantity: opposite,
                    reason: 'other',
                    reason_note: t.undoNote(v.adjust_quantity),
                    source: 'manual_adjustment',
                  },
                  headers: { 'Idempotency-Key': newIdempotencyKey() },
                });
                return t.adjusted(undone.adjustment_quantity, productName, t.code(undone.reason), undone.current_stock);
              },
            });
          },
          { inventory_id: 'inventory_id' },
          (x) => ({
            adjust_quantity: checks.required(x.adjust_quantity) ||
              checks.integer(x.adjust_quantity, -Limits.stock_quantity, Limits.stock_quantity) ||
              (Number(x.adjust_quantity) === 0 ? text(common).notZero : ''),
            reason: checks.required(x.reason),
            reason_note: rules.find((r) => r.reason === x.reason)?.needs_note && !x.reason_note.trim()
              ? text(common).noteForOther
              : '',
          }),
        );
      }}
    >
      <h3 id='stock-adjust-title'>{t.adjustStock}</h3>
      <FormError message={form.formError} />
      <div class='grid'>
        {!productId && (
          <Field
            label={t.productId}
            name='product_id'
            value={v.product_id}
            error={form.errors.product_id}
            onInput={(e) => set('product_id', e.currentTarget.value)}
          />
        )}
        {lots && lots.length > 0 && (
          <SelectField
            label={t.lot}
            name='inventory_id'
            value={v.inventory_id}
            error={form.errors.inventory_id}
            onChange={(x) => set('inventory_id', x)}
            hint={t.lotHint}
            options={[{ value: '', label: t.wholeProduct }, ...lots.map((l) => ({ value: l.id, label: l.label }))]}
          />
        )}
        <Field
          label={t.adjustChange}
          name='adjust_quantity'
          inputMode='numeric'
          value={v.adjust_quantity}
          error={form.errors.adjust_quantity}
          hint={t.adjustHint}
          onInput={(e) => set('adjust_quantity', e.currentTarget.value)}
        />
        <SelectField
          label={t.reason}
          name='reason'
          value={v.reason}
          error={form.errors.reason}
          onChange={(x) => set('reason', x)}
          options={[{ value: '', label: t.chooseReason }, ...reasons.map((r) => ({ value: r, label: t.code(r) }))]}
        />
        <SelectField
          label={t.source}
          name='source'
          value={v.source}
          error={form.errors.source}
          onChange={(x) => set('source', x)}
          options={enums.stock_adjust_source.map((s) => ({ value: s, label: t.code(s) }))}
        />
      </div>
      <Field
        label={t.reasonNote}
        name='reason_note'
        value={v.reason_note}
        error={form.errors.reason_note}
        hint={t.reasonNoteHint}
        onInput={(e) => set('reason_note', e.currentTarget.value)}
      />
      <div class='actions'>
        <button type='submit' class='primary' disabled={form.pending}>
          {form.pending ? t.booking : t.bookAdjustment}
        </button>
      </div>
    </form>
  );
}

type Found = { id: string; sku: string; name: string };

/**
 * Enter in a delivery line's field goes on to the next field, as in a spreadsheet, rather than booking the
 * whole delivery half typed; the delivery is booked from its own fields or its button. Enter that ends an
 * input method's composition (Chinese typed by Zhuyin or Cangjie) is the method's, not ours.
 */
function nextFieldOnEnter(event: KeyboardEvent) {
  const field = event.target as HTMLElement;
  if (event.key !== 'Enter' || event.isComposing || !(field instanceof HTMLInputElement)) return;
  event.preventDefault();
  const fields = [...(field.form?.querySelectorAll<HTMLElement>('input, select, textarea') ?? [])];
  fields[fields.indexOf(field) + 1]?.focus();
}

/**
 * Finds a product by name or SKU as it is typed: the input offers the matches (a datalist, so the keyboard
 * alone picks one), and picking or typing a SKU exactly names the product.
 */
function ProductFinder({ name, label, error, value, onInput, onFound }: {
  name: string;
  label: string;
  error?: string;
  value: string;
  onInput: (value: string) => void;
  onFound: (product: Found | undefined) => void;
}) {
  const t = text(inventoryText);
  const [matches, setMatches] = useState<Found[]>([]);
  useEffect(() => {
    const typed = value.trim();
    onFound(matches.find((m) => m.sku === typed));
    if (!typed) return setMatches([]);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      api('get', '/products', {
        query: { search: typed, is_active: 'true', per_page: '10' },
        signal: controller.signal,
      })
        .then((r) => {
          const found = r.data.map((p) => ({ id: p.id, sku: p.sku, name: p.name }));
          setMatches(found);
          onFound(found.find((m) => m.sku === typed));
        }, () => {});
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [value]);
  const listId = `${name}-matches`;
  return (
    <Field label={label} name={name} error={error} hint={t.findProductHint}>
      <>
        <input
          id={`f-${name}`}
          name={name}
          value={value}
          list={listId}
          autoComplete='off'
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={[error ? `f-${name}-error` : '', `f-${name}-hint`].filter(Boolean).join(' ')}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
        <datalist id={listId}>
          {matches.map((m) => <option key={m.id} value={m.sku}>{m.name}</option>)}
        </datalist>
      </>
    </Field>
  );
}

interface Line {
  /** Stable across removals, so a line keeps its fields' names and its errors. */
  key: number;
  product?: Found;
  /** Why the product typed could not be looked up before sending, in the console's words. */
  lookupFailed?: string;
}

let nextLine = 1;

/**
 * A delivery of several products (POST /stock-in/batch), booked whole or not at all. A refusal names its
 * line (details.index) and lands on that line's field. Undone by booking each lot back out, as undoing an
 * adjustment books its opposite.
 */
export function DeliveryForm({ onClose }: { onClose: () => void }) {
  const t = text(inventoryText);
  const [lines, setLines] = useState<Line[]>(() => [{ key: nextLine++ }]);
  const form = useForm<Record<string, string>>({ source: 'purchase_order', note: '', received_at: '' });
  const key = useIdempotencyKey();
  const [said, setSaid] = useState<{ message: string; undo?: () => Promise<string> } | null>(null);
  const status = useRef<HTMLParagraphElement>(null);
  const v = form.values;
  const field = (line: Line, name: string) => `line-${line.key}.${name}`;
  const value = (line: Line, name: string) => v[field(line, name)] ?? '';
  const set = (name: string, x: string) => {
    key.renew();
    form.set(name, x);
  };
  useEffect(() => {
    if (said) status.current?.focus();
  }, [said]);
  // Opened to be filled in: focus starts on the first line's product.
  useEffect(() => form.formRef.current?.querySelector<HTMLElement>('.delivery-line input')?.focus(), []);

  const addLine = () => {
    const line = { key: nextLine++ };
    setLines((l) => [...l, line]);
    setTimeout(
      () => form.formRef.current?.querySelector<HTMLElement>(`[name="${CSS.escape(field(line, 'product'))}"]`)?.focus(),
      0,
    );
  };
  const removeLine = (line: Line, position: number) => {
    key.renew();
    setLines((l) => l.filter((x) => x.key !== line.key));
    const after = lines[position + 1] ?? lines[position - 1];
    setTimeout(
      () =>
        form.formRef.current?.querySelector<HTMLElement>(`[name="${CSS.escape(field(after, 'product'))}"]`)?.focus(),
      0,
    );
  };

  // A line whose product was typed faster than the matches came, or that names a product not on sale (which
  // the matches leave out), is looked up by its SKU before sending: the API then says what is wrong with it
  // (not on sale) on that line, rather than the form asking to choose from a list that lacks it.
  const resolved = (line: Line): Promise<Line> => {
    const typed = value(line, 'product').trim();
    if (line.product || !typed) return Promise.resolve(line);
    return api('get', '/products', { query: { search: typed, per_page: '10' } }).then(
      (r) => ({
        ...line,
        product: r.data.map((p) => ({ id: p.id, sku: p.sku, name: p.name })).find((m) => m.sku === typed),
        lookupFailed: undefined,
      }),
      // The lookup itself failed (the server unreachable or busy): said on the line as that, not as a
      // product missing from the list.
      (error: Error) => ({ ...line, lookupFailed: error.message }),
    );
  };

  const submit = async () => {
    const ready = await Promise.all(lines.map(resolved));
    setLines(ready);
    await book(ready);
  };

  const book = (lines: Line[]) =>
    form.submit(
      async () => {
        const items = lines.map((line) => ({
          product_id: line.product!.id,
          quantity: Number(value(line, 'quantity')),
          lot_number: value(line, 'lot_number').trim() || undefined,
          expires_on: value(line, 'expires_on') || undefined,
          unit_cost: value(line, 'unit_cost').trim() === '' ? undefined : Number(value(line, 'unit_cost')),
        }));
        let r;
        try {
          r = await api('post', '/stock-in/batch', {
            body: {
              items,
              source: v.source as (typeof enums.stock_in_source)[number],
              note: v.note || undefined,
              received_at: v.received_at ? fromStoreWall(v.received_at) ?? v.received_at : undefined,
            },
            headers: { 'Idempotency-Key': key.get() },
          });
        } catch (error) {
          // A line refused as a whole (an unknown or inactive product) is that line's product's problem.
          const index = error instanceof ApiError ? error.details?.index : undefined;
          if (error instanceof ApiError && typeof index === 'number' && !error.field) {
            throw new ApiError(error.message, error.status, error.code, {
              ...error.details,
              field: `items.${index}.product_id`,
            });
          }
          throw error;
        }
        key.renew();
        const booked = r.items.map((item) => ({ inventory_id: item.inventory_id, quantity: item.quantity }));
        setLines([{ key: nextLine++ }]);
        form.setValues({ source: v.source, note: '', received_at: '' });
        changed(...STOCK);
        setSaid({
          message: t.deliveryBooked(booked.reduce((n, b) => n + b.quantity, 0), booked.length),
          undo: () => undoDelivery(booked),
        });
      },
      Object.fromEntries(lines.flatMap((line, i) => [
        [`items.${i}.product_id`, field(line, 'product')],
        ...['quantity', 'lot_number', 'expires_on', 'unit_cost'].map((
          name,
        ) => [`items.${i}.${name}`, field(line, name)]),
      ])),
      () =>
        Object.fromEntries(lines.flatMap((line) => [
          [
            field(line, 'product'),
            checks.required(value(line, 'product')) || (line.product ? '' : line.lookupFailed ?? t.unknownProduct),
          ],
          [
            field(line, 'quantity'),
            checks.required(value(line, 'quantity')) ||
            checks.integer(value(line, 'quantity'), 1, Limits.stock_quantity),
          ],
          [field(line, 'unit_cost'), checks.decimal(value(line, 'unit_cost'), 0, MAX_MONEY)],
        ])),
    );

  const undoDelivery = async (booked: { inventory_id: string; quantity: number }[]) => {
    let done = 0;
    for (const lot of booked) {
      try {
        await api('post', '/stock-adjust', {
          body: {
            inventory_id: lot.inventory_id,
            adjust_quantity: -lot.quantity,
            reason: 'other',
            reason_note: t.undoDeliveryNote,
            source: 'manual_adjustment',
          },
          headers: { 'Idempotency-Key': `undo-${lot.inventory_id}` },
        });
        done++;
      } catch (error) {
        changed(...STOCK);
        return t.deliveryPartlyUndone(done, booked.length, (error as Error).message);
      }
    }
    changed(...STOCK);
    return t.deliveryUndone(booked.length);
  };

  return (
    <form
      class='card form delivery'
      ref={form.formRef}
      noValidate
      aria-labelledby='delivery-title'
      data-form='delivery'
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div class='detail-head'>
        <h2 id='delivery-title'>{t.deliveryTitle}</h2>
        <button type='button' class='link' onClick={onClose}>{t.close}</button>
      </div>
      <p class='muted'>{t.deliveryLead}</p>
      {said && (
        <p class='state success' role='status' tabIndex={-1} ref={status}>
          {said.message} {said.undo && (
            <button
              type='button'
              class='link'
              onClick={async () => {
                const run = said.undo!;
                setSaid({ message: said.message });
                setSaid({ message: await run() });
              }}
            >
              {t.undoDelivery}
            </button>
          )}
        </p>
      )}
      <FormError message={form.formError} />
      <ol class='delivery-lines' onKeyDown={nextFieldOnEnter}>
        {lines.map((line, i) => (
          <li key={line.key} class='grid delivery-line' aria-label={t.line(i + 1)} data-line={i}>
            <ProductFinder
              name={field(line, 'product')}
              label={t.findProduct}
              value={value(line, 'product')}
              error={form.errors[field(line, 'product')]}
              onInput={(x) => set(field(line, 'product'), x)}
              onFound={(found) => setLines((l) => l.map((x) => (x.key === line.key ? { ...x, product: found } : x)))}
            />
            <Field
              label={t.quantityReceived}
              name={field(line, 'quantity')}
              inputMode='numeric'
              value={value(line, 'quantity')}
              error={form.errors[field(line, 'quantity')]}
              onInput={(e) => set(field(line, 'quantity'), e.currentTarget.value)}
            />
            <Field
              label={t.lotNumber}
              name={field(line, 'lot_number')}
              value={value(line, 'lot_number')}
              maxLength={64}
              error={form.errors[field(line, 'lot_number')]}
              onInput={(e) => set(field(line, 'lot_number'), e.currentTarget.value)}
            />
            <Field
              label={t.expiresOn}
              name={field(line, 'expires_on')}
              type='date'
              value={value(line, 'expires_on')}
              error={form.errors[field(line, 'expires_on')]}
              onInput={(e) => set(field(line, 'expires_on'), e.currentTarget.value)}
            />
            <Field
              label={t.unitCost}
              name={field(line, 'unit_cost')}
              inputMode='decimal'
              value={value(line, 'unit_cost')}
              error={form.errors[field(line, 'unit_cost')]}
              onInput={(e) => set(field(line, 'unit_cost'), e.currentTarget.value)}
            />
            {lines.length > 1 && (
              <button type='button' class='link remove-line' onClick={() => removeLine(line, i)}>
                {t.removeLine(i + 1)}
              </button>
            )}
          </li>
        ))}
      </ol>
      <div class='actions'>
        <button type='button' onClick={addLine}>{t.addLine}</button>
      </div>
      <div class='grid'>
        <SelectField
          label={t.source}
          name='source'
          value={v.source}
          error={form.errors.source}
          onChange={(x) => set('source', x)}
          options={enums.stock_in_source.map((x) => ({ value: x, label: t.code(x) }))}
        />
        <Field
          label={t.receivedAt}
          name='received_at'
          type='datetime-local'
          value={v.received_at}
          error={form.errors.received_at}
          hint={t.receivedAtHint}
          onInput={(e) => set('received_at', e.currentTarget.value)}
        />
        <Field
          label={t.deliveryNote}
          name='note'
          value={v.note}
          error={form.errors.note}
          onInput={(e) => set('note', e.currentTarget.value)}
        />
      </div>
      <div class='actions'>
        <button type='submit' class='primary' disabled={form.pending}>
          {form.pending ? t.booking : t.bookDelivery}
        </button>
      </div>
    </form>
  );
}
