-- The carrier's label for thermal printers (ZPL), when the carrier gives one; null: PDF only.
ALTER TABLE shipments ADD COLUMN label_zpl_blob text;
