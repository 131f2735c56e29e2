-- depesz's table and row generator (published.json "setup"), then the 90% delete.
CREATE TABLE test (id serial PRIMARY KEY, whatever int4, anything text) WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off);

INSERT INTO test (whatever, anything)
SELECT random() * 100000, repeat('some TEXT' || random() * 100, (100 + random() * 900)::int)
FROM generate_series(1, {{rows}});

DELETE FROM test WHERE 0 < (id % 10);
