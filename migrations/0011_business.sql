-- The business behind the API: stock movements, the money ledger, invoices, integrators.

-- Every change of an item's quantities, with what caused it. Rows are never changed.
CREATE TABLE stock_movements (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  item_id text NOT NULL REFERENCES items(id),
  kind text NOT NULL CHECK (kind IN ('reserve', 'release', 'ship', 'receive', 'correct')),
  logical_delta integer NOT NULL,
  physical_delta integer NOT NULL,
  logical_after integer NOT NULL,
  physical_after integer NOT NULL,
  order_id text,
  reason text,
  created_at timestamptz NOT NULL
);
CREATE INDEX stock_movements_item ON stock_movements (item_id, id);

-- Prepaid accounts pay before production; the others are invoiced with payment_term_days.
ALTER TABLE accounts ADD COLUMN prepaid boolean NOT NULL DEFAULT false;
-- The test environment's ledger entries: what would have been booked, summed apart from the balance.
ALTER TABLE accounts ADD COLUMN simulated_balance_cents bigint NOT NULL DEFAULT 0;

-- The money ledger of an account: charges negative, credits positive. accounts.balance_cents is kept
-- equal to the sum of its non-simulated entries in the same transaction. `source` names what caused
-- an entry (an order's production, a claim's refund), so the same cause is booked once.
CREATE TABLE ledger_entries (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  account_id text NOT NULL REFERENCES accounts(id),
  kind text NOT NULL CHECK (kind IN ('opening', 'charge', 'refund', 'payment', 'adjustment')),
  amount_cents bigint NOT NULL,
  source text NOT NULL,
  order_id text,
  claim_id text,
  description text NOT NULL,
  -- the test environment: what would have been booked; never in the balance or on an invoice
  simulated boolean NOT NULL DEFAULT false,
  invoice_id text,
  created_at timestamptz NOT NULL,
  UNIQUE (kind, source)
);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, seq);
CREATE INDEX ledger_entries_uninvoiced ON ledger_entries (account_id, created_at) WHERE invoice_id IS NULL AND NOT simulated;

-- Gap-free invoice numbers: one counter row per series, taken in the issuing transaction.
CREATE TABLE invoice_counters (
  series text PRIMARY KEY,
  last_number integer NOT NULL
);

-- An issued invoice or credit note: everything printed on it is stored, so its PDF is the same on
-- every download. Rows are never changed (the trigger below refuses it); corrections are credit notes.
CREATE TABLE invoices (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  account_id text NOT NULL REFERENCES accounts(id),
  kind text NOT NULL CHECK (kind IN ('invoice', 'credit_note')),
  number text NOT NULL UNIQUE,
  corrects_invoice_id text REFERENCES invoices(id),
  period_start date NOT NULL,
  period_end date NOT NULL,
  issued_at timestamptz NOT NULL,
  due_at timestamptz NOT NULL,
  buyer jsonb NOT NULL,
  vat_treatment text NOT NULL CHECK (vat_treatment IN ('reverse_charge', 'domestic')),
  vat_rate_percent integer NOT NULL,
  lines jsonb NOT NULL,
  net_cents bigint NOT NULL,
  vat_cents bigint NOT NULL,
  total_cents bigint NOT NULL,
  reason text
);
CREATE INDEX invoices_account ON invoices (account_id, seq);
CREATE INDEX invoices_org ON invoices (organization_id, seq);
CREATE UNIQUE INDEX invoices_one_per_month ON invoices (account_id, period_start) WHERE kind = 'invoice';

-- (kept on one line: the migrator splits statements at a `;` that ends a line)
CREATE FUNCTION invoices_immutable() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'invoice % is issued and cannot change, issue a credit note', OLD.number; END $$;
CREATE TRIGGER invoices_immutable BEFORE UPDATE OR DELETE ON invoices
  FOR EACH ROW EXECUTE FUNCTION invoices_immutable();

-- A partner app acting for many organizations; keys issued through it stamp its code on orders.
CREATE TABLE integrators (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  code text NOT NULL UNIQUE,
  name text NOT NULL,
  created_at timestamptz NOT NULL
);
ALTER TABLE api_keys ADD COLUMN integrator_id text REFERENCES integrators(id);
