-- Every change to an order or its lines is announced on `pod_changes` (the channel of
-- platform/cache.ts) as `order:<id>`, delivered when its transaction commits: the per-process cache
-- of order views (GET /v2/orders/{ref}) drops that order on every node, whichever statement changed it.
CREATE FUNCTION pod_order_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('pod_changes', 'order:' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END)); RETURN NULL; END $$;
CREATE FUNCTION pod_orderline_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('pod_changes', 'order:' || (CASE WHEN TG_OP = 'DELETE' THEN OLD.order_id ELSE NEW.order_id END)); RETURN NULL; END $$;
CREATE TRIGGER orders_changed AFTER UPDATE OR DELETE ON orders FOR EACH ROW EXECUTE FUNCTION pod_order_changed();
CREATE TRIGGER orderlines_changed AFTER UPDATE OR DELETE ON orderlines FOR EACH ROW EXECUTE FUNCTION pod_orderline_changed();
