-- Outbox events are claimed with FOR UPDATE SKIP LOCKED and marked
-- delivered in the transaction that claims them: no claim outlives its
-- transaction, so the claim time was never written.
ALTER TABLE outbox DROP COLUMN claimed_ns;
