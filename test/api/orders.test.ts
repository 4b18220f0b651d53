// The orders list over HTTP: what each caller may see (the tables' RLS), its filters and paging, its
// refusals, and a summary counted the way business health counts orders. Orders are scoped by a customer of
// their own per test, since other files write orders to the same database at the same time.
import { describe, expect, it } from 'vitest';
import { asRole, call, createCustomer, createUser, database, tokens, unique } from '../support/client.ts';

const sql = database();
const HOUR = 3_600_000;
const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * HOUR).toISOString();

interface OrderSpec {
  hoursAgo: number;
  amount: number;
  status?: string;
  cancelledHoursAgo?: number;
  completedHoursAgo?: number;
}

async function orders(customerId: string, specs: OrderSpec[]) {
  const ids: string[] = [];
  for (const spec of specs) {
    const [{ id }] = await sql`
      insert into public.orders (customer_id, status, total_amount, ordered_at, cancelled_at, completed_at)
      values (${customerId}, ${spec.status ?? 'paid'}, ${spec.amount}, ${at(spec.hoursAgo)},
              ${spec.cancelledHoursAgo === undefined ? null : at(spec.cancelledHoursAgo)},
              ${spec.completedHoursAgo === undefined ? null : at(spec.completedHoursAgo)})
      returning id`;
    ids.push(id);
  }
  return ids;
}

const list = (query: Record<string, string>, token = tokens.admin) =>
  call(`orders?${new URLSearchParams(query)}`, { token });

describe('GET /orders', () => {
  it('an administrator lists a customer’s orders newest first, paged, with every matching order summed', async () => {
    const customer = await createCustomer(sql, 'orders');
    const [older, , newest] = await orders(customer, [
      { hoursAgo: 30, amount: 100 },
      { hoursAgo: 20, amount: 250.5 },
      { hoursAgo: 10, amount: 49.5 },
    ]);
    const res = await list({ customer_id: customer, per_page: '2' });
    expect(res.status).toBe(200);
    expect(res.body.data.map((o: { id: string }) => o.id)[0]).toBe(newest);
    expect(res.body.pagination).toEqual({ page: 1, per_page: 2, total_count: 3, total_pages: 2 });
    expect(res.body.summary).toMatchObject({ orders: 3, counted_orders: 3, revenue: 400, average_order_value: 133.33, customers: 1 });
    expect(res.body.data[0]).toMatchObject({ customer_id: customer, customer_name: 'orders test', status: 'paid', total_amount: 49.5 });
    const ascending = await list({ customer_id: customer, sort_by: 'total_amount', sort_order: 'asc' });
    expect(ascending.body.data.map((o: { total_amount: number }) => o.total_amount)).toEqual([49.5, 100, 250.5]);
    const window = await list({ customer_id: customer, ordered_from: at(25), ordered_before: at(5) });
    expect(window.body.summary).toMatchObject({ orders: 2, revenue: 300 });
    expect(window.body.data.map((o: { id: string }) => o.id)).not.toContain(older);
  });

  it('the summary counts as business health does: not refunded, not cancelled before as_of, completed by then', async () => {
    const customer = await createCustomer(sql, 'summary');
    await orders(customer, [
      { hoursAgo: 40, amount: 10, status: 'completed', completedHoursAgo: 30 },
      { hoursAgo: 40, amount: 20, status: 'cancelled', cancelledHoursAgo: 35 },
      { hoursAgo: 40, amount: 40, status: 'cancelled', cancelledHoursAgo: 5 },
      { hoursAgo: 40, amount: 80, status: 'refunded' },
    ]);
    const now = await list({ customer_id: customer });
    expect(now.body.summary).toMatchObject({ orders: 4, counted_orders: 1, revenue: 10, completed: 1, cancelled: 2, refunded: 1 });
    // A day ago the later cancellation had not happened yet: that order still counted.
    const asOf = at(24);
    const dayAgo = await list({ customer_id: customer, as_of: asOf });
    expect(dayAgo.body.summary).toEqual({
      as_of: asOf,
      orders: 4,
      counted_orders: 2,
      revenue: 50,
      average_order_value: 25,
      completed: 1,
      cancelled: 1,
      refunded: 1,
      customers: 1,
    });
    // Every order placed is exactly one of counted, cancelled by then and refunded; each figure lists its own.
    for (const summary of [now.body.summary, dayAgo.body.summary]) {
      expect(summary.counted_orders + summary.cancelled + summary.refunded).toBe(summary.orders);
    }
    const refunded = await list({ customer_id: customer, figure: 'refunded' });
    expect(refunded.body.data.map((o: { total_amount: number }) => o.total_amount)).toEqual([80]);
    const byStatus = await list({ customer_id: customer, status: 'cancelled' });
    expect(byStatus.body.pagination.total_count).toBe(2);
  });

  it('the average order value is rounded as business health rounds it: half a cent up, in decimal', async () => {
    const customer = await createCustomer(sql, 'average');
    // 1.005 exactly, which binary floating point holds as 1.00499999…
    await orders(customer, [{ hoursAgo: 3, amount: 1 }, { hoursAgo: 2, amount: 1.01 }]);
    const res = await list({ customer_id: customer });
    expect(res.body.summary).toMatchObject({ counted_orders: 2, revenue: 2.01, average_order_value: 1.01 });
  });

  it('a customer sees only their own orders; an anonymous caller none', async () => {
    const user = await createUser(sql);
    const [{ id: own }] = await sql`
      insert into public.customers (user_id, email, name) values (${user.id}, ${`${user.id}@example.com`}, 'Own')
      returning id`;
    const other = await createCustomer(sql, 'other');
    await orders(own, [{ hoursAgo: 1, amount: 5 }]);
    await orders(other, [{ hoursAgo: 1, amount: 7 }]);
    const mine = await list({}, user.token);
    expect(mine.status).toBe(200);
    expect(mine.body.data.map((o: { customer_id: string }) => o.customer_id)).toEqual([own]);
    expect(mine.body.summary).toMatchObject({ orders: 1, revenue: 5 });
    expect((await list({ customer_id: other }, user.token)).body.pagination.total_count).toBe(0);
    const anonymous = await list({}, tokens.anon);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('bad filters are a 400 that names the parameter', async () => {
    for (const [query, field] of [
      [{ status: 'lost' }, 'status'],
      [{ ordered_from: '2026-13-01' }, 'ordered_from'],
      [{ ordered_from: at(1), ordered_before: at(2) }, 'ordered_before'],
      [{ as_of: '0000-01-01T00:00:00Z' }, 'as_of'],
      [{ customer_id: 'nobody' }, 'customer_id'],
      [{ per_page: '500' }, 'per_page'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const res = await list(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body, JSON.stringify(query)).toMatchObject({ success: false, code: 'VALIDATION_ERROR', details: { field } });
    }
  });
});

describe('finding an order', () => {
  it("search finds an order by its id, by its reference (the id's first 8 digits), and by its customer's name or e-mail", async () => {
    const name = `Searchable ${unique('name')}`;
    const email = `${unique('findme')}@search.example`;
    const [{ id: customer }] = await sql`insert into public.customers (email, name) values (${email}, ${name}) returning id`;
    const other = await createCustomer(sql, 'unfound');
    const [first, second] = await orders(customer, [{ hoursAgo: 3, amount: 10 }, { hoursAgo: 2, amount: 20 }]);
    await orders(other, [{ hoursAgo: 1, amount: 30 }]);
    const ids = async (search: string) =>
      (await list({ search, per_page: '200' })).body.data.map((o: { id: string }) => o.id);
    expect(await ids(first)).toEqual([first]);
    expect(await ids(first.toUpperCase())).toEqual([first]);
    expect(await ids(`#${first.slice(0, 8).toUpperCase()}`)).toContain(first);
    expect(await ids(name.slice(4, 20).toLowerCase())).toEqual([second, first]);
    expect(await ids(email.split('@')[0])).toEqual([second, first]);
    // Literally: a pattern character matches itself, not any text.
    expect(await ids('%%%')).not.toContain(first);
    const found = await list({ search: email });
    expect(found.body.summary).toMatchObject({ orders: 2, revenue: 30 });
  });

  it('a search of one or two letters is refused with a 400 naming the minimum (three); one Chinese character is a search', async () => {
    for (const search of ['a', ' ab ', '#0']) {
      const res = await list({ search });
      expect(res.status, search).toBe(400);
      expect(res.body, search).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'search' } });
      expect(JSON.stringify(res.body), search).toContain('at least 3 characters, or one Chinese character');
    }
    // A surname alone finds its holders: a rare one, which no other test's customer bears.
    const [{ id: customer }] = await sql`
      insert into public.customers (email, name) values (${`${unique('surname')}@search.example`}, '龘小明') returning id`;
    const [first, second] = await orders(customer, [{ hoursAgo: 3, amount: 10 }, { hoursAgo: 2, amount: 20 }]);
    for (const search of ['龘', ' 龘小 ', '龘小明']) {
      const res = await list({ search, per_page: '200' });
      expect(res.status, search).toBe(200);
      expect(res.body.data.map((o: { id: string }) => o.id), search).toEqual([second, first]);
      expect(res.body.summary, search).toMatchObject({ orders: 2, revenue: 30 });
    }
  });

  it('a customer searching finds only their own orders', async () => {
    const user = await createUser(sql);
    const [{ id: own }] = await sql`
      insert into public.customers (user_id, email, name) values (${user.id}, ${`${user.id}@example.com`}, 'Shared Name')
      returning id`;
    const [{ id: stranger }] = await sql`
      insert into public.customers (email, name) values (${`${unique('stranger')}@example.com`}, 'Shared Name') returning id`;
    const [mine] = await orders(own, [{ hoursAgo: 1, amount: 1 }]);
    await orders(stranger, [{ hoursAgo: 1, amount: 2 }]);
    const res = await list({ search: 'Shared Name' }, user.token);
    expect(res.body.data.map((o: { id: string }) => o.id)).toEqual([mine]);
  });

  it('the customer lookup behind the search steps past RLS for its index, and gives a customer only their own row', async () => {
    const user = await createUser(sql);
    const [{ id: own }] = await sql`
      insert into public.customers (user_id, email, name) values (${user.id}, ${`${user.id}@example.com`}, 'Lookup Name')
      returning id`;
    await createCustomer(sql, 'lookup');
    const { result, error } = await asRole(sql, { role: 'authenticated', sub: user.id }, (tx) =>
      tx`select array_agg(id) as ids from private.customers_matching('%') as m (id)`);
    expect(error).toBeUndefined();
    expect(result?.[0].ids).toEqual([own]);
    const [{ count }] = await sql`select count(*)::int from private.customers_matching('%lookup%') as m (id)`;
    expect(count, 'the owner (no claims) is not an administrator either').toBe(0);
    const { result: admin } = await asRole(sql, { role: 'service_role' }, (tx) =>
      tx`select count(*)::int as n from private.customers_matching('%lookup%') as m (id)`);
    expect(admin?.[0].n).toBeGreaterThan(0);
  });

  it('a search matches a name or e-mail as ilike does, in any case and script, found first or checked order by order alike', async () => {
    const tag = unique('case');
    const names = [`ÅSA Öberg ${tag}`, `陳小明 ${tag}`, `Ἀθηνᾶ ΣΟΦΊΑ ${tag}`, `under_score ${tag}`];
    const customers: string[] = [];
    for (const [i, name] of names.entries()) {
      const [{ id }] = await sql`insert into public.customers (email, name)
        values (${`Mixed.Case${i}+${tag}@Example.COM`}, ${name}) returning id`;
      customers.push(id);
      await sql`insert into public.orders (customer_id, status, total_amount) values (${id}, 'paid', 10)`;
    }
    const ilike = (pattern: string) => sql`select coalesce(array_agg(id order by id), '{}') as ids from public.customers
      where (name ilike ${pattern} or email ilike ${pattern}) and id = any(${customers}::uuid[])`;
    for (const text of ['åsa', 'ÅSA ö', '陳小', 'σοφία', 'ἀθηνᾶ', 'MIXED.CASE1', 'example.com', 'under\\_score', 'under\\%']) {
      const pattern = `%${text}%`;
      const [{ ids: expected }] = await ilike(pattern);
      const { result } = await asRole(sql, { role: 'service_role' }, (tx) => tx`
        select (select coalesce(array_agg(m.id order by m.id), '{}') from private.customers_matching(${pattern}) m(id)
                where m.id = any(${customers}::uuid[])) as found_first,
               (select coalesce(array_agg(o.customer_id order by o.customer_id), '{}') from public.orders o
                where o.customer_id = any(${customers}::uuid[])
                  and exists (select 1 from public.customers c where c.id = o.customer_id
                              and private.customer_matches(c.search_name, c.search_email, ${pattern}))) as each_order`);
      expect(result?.[0], text).toEqual({ found_first: expected, each_order: expected });
    }
    // Some patterns match, some do not: the comparison is not of empty lists only.
    expect((await ilike('%åsa%'))[0].ids).toEqual([customers[0]]);
    expect((await ilike('%under\\%%'))[0].ids).toEqual([]);
  });

  it("GET /orders/:id answers the order, its customer, its timeline in time order and the customer's order count", async () => {
    const customer = await createCustomer(sql, 'timeline');
    const [id] = await orders(customer, [{ hoursAgo: 10, amount: 50, status: 'completed', completedHoursAgo: 2 }]);
    const shipped = at(8);
    await sql`update public.orders set paid_at = ${at(9.9)}, shipped_at = ${shipped}, delivered_at = ${at(4)} where id = ${id}`;
    await orders(customer, [{ hoursAgo: 1, amount: 5 }]);
    const res = await call(`orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, customer_id: customer, status: 'completed', total_amount: 50, customer_order_count: 2 });
    expect(res.body.data.customer_name).toBe('timeline test');
    expect(res.body.data.timeline.map((s: { event: string }) => s.event)).toEqual(['placed', 'paid', 'shipped', 'delivered', 'completed']);
    expect(Date.parse(res.body.data.timeline[2].at)).toBe(Date.parse(shipped));
  });

  it('a refunded order ends its timeline with the refund; a payment or refund before the order is refused by the table', async () => {
    const customer = await createCustomer(sql, 'refund');
    const [id] = await orders(customer, [{ hoursAgo: 30, amount: 80, status: 'refunded' }]);
    await sql`update public.orders set paid_at = ${at(29.9)}, refunded_at = ${at(2)} where id = ${id}`;
    const res = await call(`orders/${id}`);
    expect(res.body.data.timeline.map((s: { event: string }) => s.event)).toEqual(['placed', 'paid', 'refunded']);
    for (const column of ['paid_at', 'refunded_at']) {
      const refused = await sql`update public.orders set ${sql(column)} = ${at(31)} where id = ${id}`.then(() => null, (e) => e);
      expect(refused, column).toMatchObject({ code: '23514' });
    }
  });

  it("an order the caller may not see, or that does not exist, is a 404; a malformed id a 400", async () => {
    const user = await createUser(sql);
    const customer = await createCustomer(sql, 'hidden');
    const [id] = await orders(customer, [{ hoursAgo: 1, amount: 5 }]);
    expect((await call(`orders/${id}`, { token: user.token })).body).toMatchObject({ code: 'ORDER_NOT_FOUND' });
    expect((await call(`orders/${id}`, { token: user.token })).status).toBe(404);
    expect((await call('orders/7d2c5a4e-1b7f-4c1e-9a55-2f8e6b9d0a11')).status).toBe(404);
    expect((await call('orders/nope')).status).toBe(400);
  });
});
