-- The reference's state for the units of work (unit.go) kept in PostgreSQL
-- (unit_postgres.go). Every resource is one row of records: its JSON
-- representation in doc (json keeps the text as written), the bookkeeping
-- that never leaves the process in hidden, a file's content in content,
-- and the columns the lists order and filter by. Times are Unix
-- nanoseconds, as the in-memory lists order them.
CREATE TABLE apps (
    app             text    PRIMARY KEY,
    fee_profile     text    NOT NULL,
    fingerprint_key bytea   NOT NULL,
    window_ns       bigint  NOT NULL DEFAULT 0, -- start of the minute of creates
    created         integer NOT NULL DEFAULT 0, -- creates in that minute
    upload_bytes    bigint  NOT NULL DEFAULT 0  -- file content held
);

CREATE TABLE records (
    app        text   NOT NULL,
    kind       text   NOT NULL,
    id         text   NOT NULL,
    parent     text   NOT NULL DEFAULT '',
    created_ns bigint NOT NULL,
    updated_ns bigint NOT NULL,
    amount     bigint NOT NULL DEFAULT 0,
    unit       text,  -- the retained unit of work that created it
    doc        json   NOT NULL,
    hidden     json,
    content    bytea,
    PRIMARY KEY (kind, id)
);
-- An application's list, newest first, and by amount.
CREATE INDEX records_app_list ON records (app, kind, created_ns DESC, id DESC);
CREATE INDEX records_app_amount ON records (app, kind, amount);
-- A parent's list (a dispute's evidence, a schedule's enrollments, ...).
CREATE INDEX records_parent_list ON records (kind, parent, created_ns DESC, id DESC) WHERE parent <> '';
-- What expires with a unit of work.
CREATE INDEX records_unit ON records (app, unit) WHERE unit IS NOT NULL;

-- The client-created units of work an application holds against its
-- quotas, dropped with their records once older than the age limit.
CREATE TABLE retained_units (
    app   text   NOT NULL,
    unit  text   NOT NULL,
    at_ns bigint NOT NULL,
    cost  bigint NOT NULL,
    PRIMARY KEY (app, unit)
);
CREATE INDEX retained_units_at ON retained_units (app, at_ns);

-- The webhook events units emitted, committed with them; a replica claims
-- them (FOR UPDATE SKIP LOCKED) to deliver, another takes a claim over
-- once it is older than the claim lease.
CREATE TABLE outbox (
    seq        bigserial PRIMARY KEY,
    app        text      NOT NULL,
    entity     text      NOT NULL,
    typ        text      NOT NULL,
    view       json      NOT NULL,
    created_ns bigint    NOT NULL,
    claimed_ns bigint,   -- when a replica took it to deliver
    delivered  boolean   NOT NULL DEFAULT false
);
CREATE INDEX outbox_pending ON outbox (seq) WHERE NOT delivered;

-- The timers units set (file reviews, dispute steps), due at due_ns and
-- claimed as the outbox is.
CREATE TABLE timers (
    seq         bigserial PRIMARY KEY,
    app         text      NOT NULL,
    kind        integer   NOT NULL,
    resource_id text      NOT NULL,
    base        text      NOT NULL,
    due_ns      bigint    NOT NULL,
    claimed_ns  bigint,   -- when a replica took it to run
    done        boolean   NOT NULL DEFAULT false
);
CREATE INDEX timers_due ON timers (due_ns) WHERE NOT done;
