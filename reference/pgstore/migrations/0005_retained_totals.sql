-- What an application holds against --retain and --retain-mib, kept as
-- running totals beside its retained units: a create reads them from its
-- application's row instead of counting every unit the application holds.
ALTER TABLE apps ADD COLUMN retained integer NOT NULL DEFAULT 0;
ALTER TABLE apps ADD COLUMN retained_bytes bigint NOT NULL DEFAULT 0;
UPDATE apps a SET retained = r.n, retained_bytes = r.bytes
    FROM (SELECT app, count(*) AS n, sum(cost) AS bytes FROM retained_units GROUP BY app) r
    WHERE a.app = r.app;
