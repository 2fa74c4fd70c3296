-- When a delivery settled (delivered, or dropped as failed): the sweep keeps
-- a settled delivery for ten minutes, so what a client saw delivered can
-- still be read beside the events it names, then drops it.
ALTER TABLE deliveries ADD COLUMN done_at timestamptz;
