-- The request log's batches are stored without compression. pglz compressed every write's ~75 KB
-- of entries on the way in: on PGlite (WASM, on the thread every other statement waits for) that
-- was ~40 % of a write's cost, paid on every /v2 request. Reads decompress too, and they are rare;
-- the price is about twice the disk for the log's 14 days.
ALTER TABLE request_log_batches ALTER COLUMN entries SET STORAGE EXTERNAL;
