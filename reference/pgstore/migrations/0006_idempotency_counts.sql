-- How many idempotency keys each application holds, against --retain as the
-- in-memory ledger counts them: a claim of a new key takes one under the
-- counter's row lock (so replicas claiming at once never pass the bound),
-- an abandoned or expired key gives it back.
CREATE TABLE idempotency_counts (
    app  text    PRIMARY KEY,
    keys integer NOT NULL
);
INSERT INTO idempotency_counts (app, keys) SELECT app, count(*) FROM idempotency_keys GROUP BY app;
