-- New batches are written packed (src/modules/requestlog/packed.ts): ~25-50 bytes a request instead
-- of ~150 of JSON text, which PGlite copied into WASM, cut into TOAST chunks and wrote to its WAL on
-- the thread HTTP shares the machine's cores with, on every /v2 request. Batches written before keep
-- their JSON text in `entries` and are read as they are; each row has exactly one of the two.
ALTER TABLE request_log_batches ADD COLUMN packed bytea;
ALTER TABLE request_log_batches ALTER COLUMN packed SET STORAGE EXTERNAL;
ALTER TABLE request_log_batches ALTER COLUMN entries DROP NOT NULL;
ALTER TABLE request_log_batches ADD CONSTRAINT request_log_batches_one_form
  CHECK ((entries IS NULL) <> (packed IS NULL));
