-- A webhook event's delivery to one webhook, with its retry state. The
-- replica that publishes an outbox event writes one row per target webhook
-- in the transaction that marks the event delivered. Any replica claims a
-- due row (FOR UPDATE SKIP LOCKED) under a lease, posts once, then marks it
-- done (2xx, target refused, webhook disabled, retries spent) or due again
-- after the backoff; a row whose lease ran out (its replica died mid-post)
-- is claimed again by any replica. Times are the database's clock, one for
-- every replica.
CREATE TABLE deliveries (
    seq         bigserial   PRIMARY KEY,
    app         text        NOT NULL,
    webhook     text        NOT NULL,
    event       text        NOT NULL,
    body        bytea       NOT NULL,
    attempts    integer     NOT NULL DEFAULT 0, -- posts started (counted when claimed)
    due_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_until timestamptz, -- claimed by a replica until then
    done        boolean     NOT NULL DEFAULT false
);
CREATE INDEX deliveries_due ON deliveries (due_at) WHERE NOT done;
