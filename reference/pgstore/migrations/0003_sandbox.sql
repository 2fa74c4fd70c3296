-- The sandbox's users and namespaces (unit_postgres.go). A user keeps a
-- salted SHA-256 of its password, never the password. An application of a
-- namespace names it; dropping the namespace drops its applications with
-- their users and records.
CREATE TABLE namespaces (
    id      text   PRIMARY KEY,
    used_ns bigint NOT NULL -- the last authentication into it
);

ALTER TABLE apps ADD COLUMN namespace text REFERENCES namespaces (id) ON DELETE CASCADE;
CREATE INDEX apps_namespace ON apps (namespace) WHERE namespace IS NOT NULL;

CREATE TABLE users (
    username text  PRIMARY KEY,
    salt     bytea NOT NULL,
    hash     bytea NOT NULL,
    role     text  NOT NULL,
    app      text  NOT NULL REFERENCES apps (app) ON DELETE CASCADE
);

-- The seed the database's fixtures were made from: the first replica seeds
-- it, the others find it (and must be started with the same --seed).
CREATE TABLE seeds (
    one  boolean PRIMARY KEY DEFAULT true CHECK (one),
    seed bigint  NOT NULL
);
