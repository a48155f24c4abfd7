-- A combined parcel at the packing table: combined orders of one store packed into one box and
-- shipped as one shipment to the store's combined address. It opens with the first case scanned of
-- any of the store's combined orders and takes every combined order of that store then in
-- production; a case of another of the store's orders scanned while it is open joins it. It closes
-- when it ships (`shipment_id`). One open parcel per store.
CREATE TABLE pack_parcels (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id),
  store_id text NOT NULL REFERENCES stores(id),
  opened_at timestamptz NOT NULL,
  shipment_id text,
  closed_at timestamptz
);
CREATE UNIQUE INDEX pack_parcels_open_store ON pack_parcels (store_id) WHERE closed_at IS NULL;

CREATE TABLE pack_parcel_orders (
  parcel_id text NOT NULL REFERENCES pack_parcels(id),
  order_id text NOT NULL REFERENCES orders(id),
  PRIMARY KEY (parcel_id, order_id)
);
CREATE INDEX pack_parcel_orders_order ON pack_parcel_orders (order_id);
