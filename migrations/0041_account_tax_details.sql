-- The check of an account's VAT number that decides its invoices' VAT: only `valid` can be
-- reverse-charged. Numbers stored before the check existed are `unchecked` until an operator
-- confirms them.
ALTER TABLE accounts ADD COLUMN vat_status text NOT NULL DEFAULT 'unchecked'
  CHECK (vat_status IN ('valid', 'invalid', 'unchecked'));
ALTER TABLE accounts ADD COLUMN vat_checked_at timestamptz;
ALTER TABLE accounts ADD COLUMN vat_checked_by text;
ALTER TABLE accounts ADD COLUMN vat_check_detail text;

-- A partner's change of the fields that decide tax (legal entity name, VAT number, billing
-- country), waiting for an operator. The account keeps its details until the request is approved.
CREATE TABLE account_tax_requests (
  id text PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  organization_id text NOT NULL REFERENCES organizations(id),
  account_id text NOT NULL REFERENCES accounts(id),
  legal_entity_name text NOT NULL,
  vat_number text,
  billing_address jsonb NOT NULL,
  -- the checks made when it was requested: form and check digits, then the live check if any
  check_status text NOT NULL CHECK (check_status IN ('valid', 'invalid', 'unchecked')),
  check_detail text NOT NULL,
  requested_by text NOT NULL,
  requested_at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'replaced')),
  decided_by text,
  decided_at timestamptz,
  decision_note text
);
CREATE UNIQUE INDEX account_tax_requests_one_pending ON account_tax_requests (account_id) WHERE status = 'pending';
CREATE INDEX account_tax_requests_account ON account_tax_requests (account_id, seq);
