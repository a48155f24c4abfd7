-- The customs declaration (CN23 or commercial invoice) the carrier made for a parcel leaving the
-- EU, kept beside its label; null: no declaration (inside the EU, or the carrier takes it digitally).
ALTER TABLE shipments ADD COLUMN customs_blob text;
