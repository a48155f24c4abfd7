-- A credit note's ledger adjustment is on the credit note itself: stamp the adjustments booked
-- without it, so no monthly invoice bills them a second time. Adjustments already billed on an
-- issued invoice stay as they are: issued invoices never change.
UPDATE ledger_entries SET invoice_id = source
WHERE kind = 'adjustment' AND invoice_id IS NULL
  AND source IN (SELECT id FROM invoices WHERE kind = 'credit_note');
