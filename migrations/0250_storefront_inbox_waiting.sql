-- The deliveries still to process, by store in arrival order: an order's job takes the others of
-- its store along without reading past every delivery already processed.
CREATE INDEX storefront_inbox_waiting ON storefront_inbox (store_id, seq) WHERE processed_at IS NULL;
