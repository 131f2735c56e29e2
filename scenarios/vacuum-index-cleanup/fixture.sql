-- The article's table (published.json "setup.table"), filled server-side with generate_series.
CREATE TABLE idx_test_table (
  series_num     integer PRIMARY KEY,
  random_num     float,
  random_char    char(2000),
  random_varchar varchar(2000),
  random_text1   text,
  random_text2   text,
  create_dt      timestamp(0) DEFAULT current_timestamp
) WITH (autovacuum_enabled = off, toast.autovacuum_enabled = off);

INSERT INTO idx_test_table (series_num, random_num, random_char, random_varchar, random_text1, random_text2)
SELECT i, random() * 1000000, md5(i::text), md5(random()::text), md5(random()::text), md5(random()::text)
FROM generate_series(1, {{rows}}) AS i;

CREATE INDEX idx_random_num ON idx_test_table (random_num);
ANALYZE idx_test_table;

-- One dead tuple per row, as in the article.
UPDATE idx_test_table SET random_char = random_text1 || random_text2;
