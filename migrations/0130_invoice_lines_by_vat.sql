-- Invoices itemised with VAT per line by place of supply: an invoice may be an export or mix
-- treatments; it keeps the seller's details and its totals by VAT rate as issued.
ALTER TABLE invoices DROP CONSTRAINT invoices_vat_treatment_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_vat_treatment_check
  CHECK (vat_treatment IN ('reverse_charge', 'domestic', 'export', 'mixed'));
ALTER TABLE invoices ADD COLUMN seller jsonb;
ALTER TABLE invoices ADD COLUMN vat_breakdown jsonb NOT NULL DEFAULT '[]';
-- What a charge or refund was for (the order's items, shipping, store, destination): the invoice
-- lines are built from it.
ALTER TABLE ledger_entries ADD COLUMN detail jsonb;
