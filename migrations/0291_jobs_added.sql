-- A statement that inserts jobs announces their kinds on `pod_jobs` (comma separated), delivered
-- when its transaction commits: every worker wakes the pools that run them at once, so an idle
-- pool need not poll for new work (platform/jobs/worker.ts).
CREATE FUNCTION pod_jobs_added() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('pod_jobs', k.kinds) FROM (SELECT string_agg(DISTINCT kind, ',' ORDER BY kind) AS kinds FROM new_jobs) k WHERE k.kinds IS NOT NULL; RETURN NULL; END $$;
CREATE TRIGGER jobs_added AFTER INSERT ON jobs REFERENCING NEW TABLE AS new_jobs FOR EACH STATEMENT EXECUTE FUNCTION pod_jobs_added();
