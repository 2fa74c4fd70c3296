-- File content kept apart from the file's record, in pieces of at most
-- 256 KiB (unit_postgres.go, content_postgres.go): an upload is written
-- piece by piece as it is read, staged under its ref before the unit of
-- work that attaches it (the file's hidden content_ref), and a download is
-- read piece by piece; neither holds the whole content. Content uploaded
-- before stays in records.content and is read as before.
CREATE TABLE file_content (
    app        text    NOT NULL,
    file       text    NOT NULL,
    ref        text    NOT NULL,
    seq        integer NOT NULL,
    created_ns bigint  NOT NULL,
    data       bytea   NOT NULL,
    PRIMARY KEY (app, ref, seq)
);
CREATE INDEX file_content_file ON file_content (app, file);
-- Uploads are mostly compressed already (PDF, JPEG, PNG): stored out of
-- line without compressing them again.
ALTER TABLE file_content ALTER COLUMN data SET STORAGE EXTERNAL;
