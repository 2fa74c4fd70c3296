-- The pending deliveries of one webhook, oldest first: publishing an event
-- keeps at most Limits.PendingDeliveries of them per webhook and marks the
-- oldest beyond it done (dropped as failed), reading them by this index.
CREATE INDEX deliveries_pending ON deliveries (app, webhook, seq) WHERE NOT done;
