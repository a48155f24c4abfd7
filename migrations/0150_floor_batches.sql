-- The production floor's units and batches. An order line in production is printed as `copies`
-- units (one case each); the batching puts units into the slots of a printer's jig, and the floor
-- moves each unit through its states by scanning it at the stations.

-- A batch: one run of a printer with one jig, its slots filled from the units awaiting a batch.
-- Its files (print file, pick list, batch sheet) are in batch_documents.
CREATE TABLE batches (
  id text PRIMARY KEY,
  printer text NOT NULL,
  jig text NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'printed', 'canceled')),
  -- Bleed beyond the cut line the print file was made with, in millimetres.
  bleed_mm numeric NOT NULL,
  created_at timestamptz NOT NULL,
  printed_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX batches_open ON batches (created_at) WHERE status = 'open';

-- One printed case: unit `unit_no` (1..copies) of an order line. `attempt` counts remakes: a unit
-- that fails QC goes back to `awaiting_batch` with attempt + 1 and the reason in `remake_reason`.
CREATE TABLE floor_units (
  id text PRIMARY KEY,
  order_id text NOT NULL REFERENCES orders(id),
  line_index integer NOT NULL,
  unit_no integer NOT NULL CHECK (unit_no > 0),
  organization_id text NOT NULL REFERENCES organizations(id),
  state text NOT NULL CHECK (state IN ('awaiting_batch', 'batched', 'printed', 'qc_passed', 'qc_failed', 'packed', 'canceled')),
  attempt integer NOT NULL DEFAULT 1 CHECK (attempt > 0),
  remake_reason text,
  batch_id text REFERENCES batches(id),
  -- Oldest orders are batched first: the order's creation time, copied so the batching reads one table.
  order_created_at timestamptz NOT NULL,
  state_changed_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (order_id, line_index, unit_no),
  FOREIGN KEY (order_id, line_index) REFERENCES orderlines(order_id, line_index)
);
CREATE INDEX floor_units_awaiting ON floor_units (order_created_at, order_id, line_index, unit_no) WHERE state = 'awaiting_batch';
CREATE INDEX floor_units_batch ON floor_units (batch_id);
CREATE INDEX floor_units_order ON floor_units (order_id);

-- Which unit sits in which slot of the batch's jig (slot ids are the jig's, from the floor configuration).
CREATE TABLE batch_slots (
  batch_id text NOT NULL REFERENCES batches(id),
  slot text NOT NULL,
  unit_id text NOT NULL REFERENCES floor_units(id),
  -- The unit's attempt when it was placed: a remade unit sits in a later batch too.
  attempt integer NOT NULL,
  PRIMARY KEY (batch_id, slot),
  UNIQUE (batch_id, unit_id)
);
CREATE INDEX batch_slots_unit ON batch_slots (unit_id);

-- Every change of a unit's state, with why: throughput, remake rates and the unit's history.
CREATE TABLE floor_unit_events (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  unit_id text NOT NULL REFERENCES floor_units(id),
  from_state text,
  to_state text NOT NULL,
  reason text,
  batch_id text,
  at timestamptz NOT NULL
);
CREATE INDEX floor_unit_events_unit ON floor_unit_events (unit_id, id);
CREATE INDEX floor_unit_events_at ON floor_unit_events (at, to_state);

-- A batch's files, made by a job: `print_file` (the bed at 1:1), `pick_list`, `batch_sheet`.
CREATE TABLE batch_documents (
  batch_id text NOT NULL REFERENCES batches(id),
  kind text NOT NULL CHECK (kind IN ('print_file', 'pick_list', 'batch_sheet')),
  status text NOT NULL CHECK (status IN ('pending', 'ready', 'failed')),
  blob_key text,
  size integer,
  details jsonb NOT NULL DEFAULT '{}',
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (batch_id, kind)
);
