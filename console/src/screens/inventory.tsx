import { useState } from 'preact/hooks';
import { ScreenHeader } from '../components/screen.tsx';
import type { Route } from '../router.ts';
import { StockAdjustForm, StockInForm } from './stock-forms.tsx';

export function InventoryScreen(_: { route: Route; isAdmin: boolean }) {
  const [message, setMessage] = useState('');
  return (
    <section class="stack">
      <ScreenHeader title="Inventory" lead="Receive goods and adjust stock; every booking lands in the product's ledger." />
      {message && <p class="state success" role="status">{message}</p>}
      <div class="two-columns">
        <StockInForm onDone={setMessage} />
        <StockAdjustForm onDone={setMessage} />
      </div>
    </section>
  );
}
