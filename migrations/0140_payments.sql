-- Money received, put against the invoices it pays. An issued invoice never changes, so what is
-- paid of it is kept here: a payment (a `payment` ledger entry) is split over one or more invoices;
-- what it does not cover stays on the account as credit for the next invoice. `payment_entry_id`
-- is null for an invoice of a prepaid account, settled from the balance paid in before production.
CREATE TABLE payment_allocations (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  invoice_id text NOT NULL REFERENCES invoices(id),
  payment_entry_id text REFERENCES ledger_entries(id),
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  created_at timestamptz NOT NULL
);
CREATE INDEX payment_allocations_invoice ON payment_allocations (invoice_id);
CREATE INDEX payment_allocations_payment ON payment_allocations (payment_entry_id);

-- An imported bank statement (ISO 20022 camt.053), once per bank account and statement id.
CREATE TABLE bank_statements (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  bank_account text NOT NULL,
  statement_id text NOT NULL,
  message_id text NOT NULL,
  created_at timestamptz NOT NULL,
  imported_by text NOT NULL,
  UNIQUE (bank_account, statement_id)
);

-- One incoming payment of a statement, stored once per bank account and entry reference, so
-- importing a statement again adds nothing. `status`: matched (by the import), unmatched (waits
-- for a person), assigned (by a person), dismissed (not a partner's payment).
CREATE TABLE bank_payments (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  statement_id text NOT NULL REFERENCES bank_statements(id),
  bank_account text NOT NULL,
  entry_reference text NOT NULL,
  booking_date date NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  currency text NOT NULL,
  debtor_name text,
  debtor_account text,
  remittance text NOT NULL,
  status text NOT NULL CHECK (status IN ('matched', 'unmatched', 'assigned', 'dismissed')),
  match_rule text CHECK (match_rule IN ('invoice_number', 'account_reference', 'amount', 'operator')),
  detail text NOT NULL,
  account_id text REFERENCES accounts(id),
  invoice_id text REFERENCES invoices(id),
  payment_entry_id text REFERENCES ledger_entries(id),
  decided_by text,
  decided_at timestamptz,
  created_at timestamptz NOT NULL,
  UNIQUE (bank_account, entry_reference)
);
CREATE INDEX bank_payments_unmatched ON bank_payments (seq) WHERE status = 'unmatched';
CREATE INDEX bank_payments_statement ON bank_payments (statement_id, seq);

-- Invoices of prepaid accounts were paid from the balance before production: settled as issued.
INSERT INTO payment_allocations (account_id, invoice_id, payment_entry_id, amount_cents, created_at)
SELECT i.account_id, i.id, NULL,
  i.total_cents + coalesce((SELECT sum(c.total_cents) FROM invoices c WHERE c.corrects_invoice_id = i.id), 0),
  i.issued_at
FROM invoices i JOIN accounts a ON a.id = i.account_id
WHERE a.prepaid AND i.kind = 'invoice'
  AND i.total_cents + coalesce((SELECT sum(c.total_cents) FROM invoices c WHERE c.corrects_invoice_id = i.id), 0) > 0;
