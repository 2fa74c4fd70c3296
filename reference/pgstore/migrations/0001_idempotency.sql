-- Idempotency keys shared by every replica: the primary key decides which
-- of concurrent duplicates runs (INSERT ... ON CONFLICT DO NOTHING); the
-- others wait for done and replay the stored answer. A claim not finished
-- within the lease (its replica died) may be taken over.
CREATE TABLE idempotency_keys (
    app          text        NOT NULL,
    op           text        NOT NULL,
    id           text        NOT NULL,
    hash         bytea       NOT NULL,
    created_at   timestamptz NOT NULL,
    claimed_at   timestamptz NOT NULL,
    done         boolean     NOT NULL DEFAULT false,
    status       integer,
    content_type text,
    request_id   text,
    body         bytea,
    PRIMARY KEY (app, op, id)
);
-- Expiry by age deletes from the oldest.
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
