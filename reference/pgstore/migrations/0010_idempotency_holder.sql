-- The claim's holder: a token each claim of a key (the first insert, every
-- takeover after the lease) writes anew. The holder's unit of work checks it
-- in its own transaction and its answer is recorded only while it holds the
-- key, so a replica whose claim was taken over (it stalled past the lease,
-- or its lease was ended for it) commits nothing and records nothing: the
-- key is still one resource.
ALTER TABLE idempotency_keys ADD COLUMN holder text NOT NULL DEFAULT '';
