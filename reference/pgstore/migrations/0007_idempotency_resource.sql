-- The resource an idempotent request's unit of work created, written in that
-- unit's transaction: a replica that takes over the claim of a replica that
-- died between the unit's commit and recording its answer answers with this
-- resource instead of creating a second one.
ALTER TABLE idempotency_keys ADD COLUMN resource text;
