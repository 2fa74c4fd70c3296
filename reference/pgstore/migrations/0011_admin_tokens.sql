-- The sandbox's admin tokens (conform serve --store): the SHA-256 of every
-- token a replica wrote to its fixtures file, so that every replica, one
-- restarted too, honours every token a client was given.
CREATE TABLE admin_tokens (
    hash bytea PRIMARY KEY
);
