-- A case that must be made again but has no blank: a failed QC (misprint, damaged blank) or a blank
-- found damaged or missing at picking, with no free blank of its item on the shelf. The unit waits
-- (`qc_failed` after QC; `awaiting_batch` from picking, skipped by the batching while held) with the
-- reason shown, and goes on by itself once a blank is free. The factory bears the blank either way.
CREATE TABLE unit_holds (
  unit_id text PRIMARY KEY REFERENCES floor_units(id),
  organization_id text NOT NULL REFERENCES organizations(id),
  reason text NOT NULL CHECK (reason IN ('misprint', 'damaged_blank', 'blank_damaged_at_picking', 'blank_missing_at_picking')),
  message text NOT NULL,
  since timestamptz NOT NULL
);
