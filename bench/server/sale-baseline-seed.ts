import pg from 'pg'

/**
 * The hand-written sale's tables (bench/server/sale-baseline.ts), beside the product's in the
 * benchmark's database and touching none of them: inventories with a `held` counter, baskets,
 * their holds, orders and tickets, with the keys, foreign keys and checks such a server would have.
 */
const SCHEMA = `
  create table if not exists baseline_inventories (
    id uuid primary key,
    seller_id uuid not null,
    event_id uuid not null,
    date date not null,
    price integer not null,
    capacity integer not null,
    sold integer not null default 0,
    held integer not null default 0,
    check (sold >= 0 and held >= 0 and sold + held <= capacity)
  );
  create table if not exists baseline_baskets (
    id uuid primary key,
    seller_id uuid not null,
    customer_id uuid not null,
    status text not null default 'open' check (status in ('open', 'checked_out', 'expired')),
    expires_at timestamptz not null,
    order_id uuid,
    created_at timestamptz not null default now()
  );
  create table if not exists baseline_holds (
    id bigint generated always as identity primary key,
    basket_id uuid not null references baseline_baskets,
    inventory_id uuid not null references baseline_inventories,
    quantity integer not null check (quantity > 0),
    state text not null default 'held' check (state in ('held', 'sold', 'released')),
    expires_at timestamptz not null
  );
  create index if not exists baseline_holds_basket_idx on baseline_holds (basket_id);
  create index if not exists baseline_holds_expiry_idx on baseline_holds (inventory_id, expires_at) where state = 'held';
  create table if not exists baseline_orders (
    id uuid primary key,
    seller_id uuid not null,
    customer_id uuid not null,
    basket_id uuid not null unique references baseline_baskets,
    total integer not null,
    payment_method text not null,
    created_at timestamptz not null default now()
  );
  create table if not exists baseline_tickets (
    id uuid primary key,
    order_id uuid not null references baseline_orders,
    inventory_id uuid not null references baseline_inventories,
    identifier text not null unique
  );
  create index if not exists baseline_tickets_order_idx on baseline_tickets (order_id);
`

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end()
  }
}

/**
 * Creates the hand-written sale's tables (once) and `count` inventories for it, each a copy of the
 * product's inventory `like` (seller, event, date, price) with `capacity` tickets, none sold or held.
 */
export const seedSaleBaseline = (url: string, options: { like: string; count: number; capacity: number }): Promise<string[]> =>
  withClient(url, async (client) => {
    await client.query(SCHEMA)
    const ids: string[] = []
    for (let n = 0; n < options.count; n++) {
      const { rows } = await client.query<{ id: string }>(
        `insert into baseline_inventories (id, seller_id, event_id, date, price, capacity)
         select gen_random_uuid(), seller_id, event_id, date, price, $2 from inventories where id = $1 returning id`,
        [options.like, options.capacity],
      )
      if (!rows[0]) throw new Error(`seedSaleBaseline: no inventory ${options.like}`)
      ids.push(rows[0].id)
    }
    await client.query('analyze baseline_inventories')
    return ids
  })

export type SaleBaselineState = { capacity: number; sold: number; held: number; heldByHolds: number; tickets: number; orders: number }

/** A hand-written sale's inventory after its run: its counters, what its live holds add up to, and its tickets and orders. */
export const saleBaselineState = (url: string, inventoryId: string): Promise<SaleBaselineState> =>
  withClient(url, async (client) => {
    const { rows } = await client.query<Record<keyof SaleBaselineState, number>>(
      `select i.capacity, i.sold, i.held,
              (select coalesce(sum(h.quantity), 0)::int from baseline_holds h where h.inventory_id = i.id and h.state = 'held') as "heldByHolds",
              (select count(*)::int from baseline_tickets t where t.inventory_id = i.id) as tickets,
              (select count(distinct t.order_id)::int from baseline_tickets t where t.inventory_id = i.id) as orders
         from baseline_inventories i where i.id = $1`,
      [inventoryId],
    )
    if (!rows[0]) throw new Error(`saleBaselineState: no inventory ${inventoryId}`)
    return rows[0]
  })
