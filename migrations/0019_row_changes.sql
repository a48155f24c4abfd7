-- Changes to cached rows are announced by the database itself on `pod_changes` (the channel of
-- platform/cache.ts) as `<topic>:<key>`, delivered when their transaction commits: every node drops
-- that one entry from its per-process cache, whichever statement made the change.
-- TG_ARGV: the topic, then the column whose value is the key.
CREATE FUNCTION pod_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('pod_changes', TG_ARGV[0] || ':' || (to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) ->> TG_ARGV[1])); RETURN NULL; END $$;
-- Order views (GET /v2/orders/{ref}): the order and its lines.
CREATE TRIGGER orders_changed AFTER UPDATE OR DELETE ON orders FOR EACH ROW EXECUTE FUNCTION pod_row_changed('order', 'id');
CREATE TRIGGER orderlines_changed AFTER UPDATE OR DELETE ON orderlines FOR EACH ROW EXECUTE FUNCTION pod_row_changed('order', 'order_id');
-- Organizations (GET /v2/organization and every page that shows one).
CREATE TRIGGER organizations_changed AFTER UPDATE OR DELETE ON organizations FOR EACH ROW EXECUTE FUNCTION pod_row_changed('organization', 'id');
