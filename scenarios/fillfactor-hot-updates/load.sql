-- Initial population of the TPROC-C tables for {{warehouses}} warehouses, generated server-side
-- with generate_series (no rows cross the network). Cardinalities and value ranges follow the
-- TPC-C specification, clause 4.3.3.1: 100,000 items; per warehouse 100,000 stock rows and 10
-- districts; per district 3,000 customers (one history row each), 3,000 orders (5 to 15 lines
-- each; the last 900 undelivered and listed in new_order). Needs the helpers of functions.sql.

-- Random "a-strings" are slices of one pool of random characters, far cheaper than building
-- every string character by character. The pool is bytea (slicing text in a UTF-8 database
-- walks the characters; slicing bytes does not) and stays below the 2 kB TOAST threshold, so
-- reading it never decompresses anything.
CREATE TEMPORARY TABLE tpcc_pool AS
SELECT convert_to(string_agg(substr('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', tpcc_rand(1, 62), 1), ''), 'UTF8') AS s
FROM generate_series(1, 1800);

INSERT INTO item (i_id, i_im_id, i_name, i_price, i_data)
SELECT i, tpcc_rand(1, 10000), tpcc_astr(p.s, 14, 24), tpcc_rand(100, 10000) / 100.0,
       CASE WHEN random() < 0.1 THEN overlay(x PLACING 'ORIGINAL' FROM tpcc_rand(1, length(x) - 7)) ELSE x END
FROM (SELECT i, tpcc_astr(p.s, 26, 50) AS x FROM generate_series(1, 100000) AS i, tpcc_pool p) AS t, tpcc_pool p;

INSERT INTO warehouse (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_tax, w_ytd)
SELECT w, tpcc_astr(p.s, 6, 10), tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 10, 20),
       tpcc_astr(p.s, 2, 2), lpad(tpcc_rand(0, 9999)::text, 4, '0') || '11111', tpcc_rand(0, 2000) / 10000.0, 300000
FROM generate_series(1, {{warehouses}}) AS w, tpcc_pool p;

INSERT INTO stock (s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05,
                   s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, s_order_cnt, s_remote_cnt, s_data)
SELECT i, w, tpcc_rand(10, 100),
       tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24),
       tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24), tpcc_astr(p.s, 24, 24),
       0, 0, 0,
       CASE WHEN random() < 0.1 THEN overlay(x PLACING 'ORIGINAL' FROM tpcc_rand(1, length(x) - 7)) ELSE x END
FROM (SELECT w, i, tpcc_astr(p.s, 26, 50) AS x
      FROM generate_series(1, {{warehouses}}) AS w, generate_series(1, 100000) AS i, tpcc_pool p) AS t, tpcc_pool p;

INSERT INTO district (d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip, d_tax, d_ytd, d_next_o_id)
SELECT d, w, tpcc_astr(p.s, 6, 10), tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 10, 20),
       tpcc_astr(p.s, 2, 2), lpad(tpcc_rand(0, 9999)::text, 4, '0') || '11111', tpcc_rand(0, 2000) / 10000.0, 30000, 3001
FROM generate_series(1, {{warehouses}}) AS w, generate_series(1, 10) AS d, tpcc_pool p;

-- The first 1,000 customers of a district take the 1,000 syllable names in order; the others a
-- NURand(255, 0, 999) one (clause 4.3.2.3), with the load-time constant C = 157.
INSERT INTO customer (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city,
                      c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance,
                      c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data)
SELECT c, d, w, tpcc_astr(p.s, 8, 16), 'OE',
       tpcc_lastname(CASE WHEN c <= 1000 THEN c - 1 ELSE tpcc_nurand(255, 0, 999, 157) END),
       tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 10, 20), tpcc_astr(p.s, 2, 2),
       lpad(tpcc_rand(0, 9999)::text, 4, '0') || '11111', lpad((random() * 1e16)::bigint::text, 16, '0'),
       now(), CASE WHEN random() < 0.1 THEN 'BC' ELSE 'GC' END, 50000, tpcc_rand(0, 5000) / 10000.0,
       -10, 10, 1, 0, tpcc_astr(p.s, 300, 500)
FROM generate_series(1, {{warehouses}}) AS w, generate_series(1, 10) AS d, generate_series(1, 3000) AS c, tpcc_pool p;

INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
SELECT c, d, w, d, w, now(), 10, tpcc_astr(p.s, 12, 24)
FROM generate_series(1, {{warehouses}}) AS w, generate_series(1, 10) AS d, generate_series(1, 3000) AS c, tpcc_pool p;

-- Each district's orders go to its customers in a random permutation; orders 2,101–3,000 are
-- not delivered yet (no carrier).
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
SELECT o_id, d, w, c, now(), CASE WHEN o_id < 2101 THEN tpcc_rand(1, 10) END, tpcc_rand(5, 15), 1
FROM (SELECT w, d, c, row_number() OVER (PARTITION BY w, d ORDER BY random())::integer AS o_id
      FROM generate_series(1, {{warehouses}}) AS w, generate_series(1, 10) AS d, generate_series(1, 3000) AS c) AS t
ORDER BY w, d, o_id;

INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d,
                        ol_quantity, ol_amount, ol_dist_info)
SELECT o.o_id, o.o_d_id, o.o_w_id, n, tpcc_rand(1, 100000), o.o_w_id,
       CASE WHEN o.o_id < 2101 THEN o.o_entry_d END, 5,
       CASE WHEN o.o_id < 2101 THEN 0 ELSE tpcc_rand(1, 999999) / 100.0 END, tpcc_astr(p.s, 24, 24)
FROM orders AS o CROSS JOIN LATERAL generate_series(1, o.o_ol_cnt) AS n, tpcc_pool p
ORDER BY o.o_w_id, o.o_d_id, o.o_id, n;

INSERT INTO new_order (no_o_id, no_d_id, no_w_id)
SELECT o, d, w
FROM generate_series(1, {{warehouses}}) AS w, generate_series(1, 10) AS d, generate_series(2101, 3000) AS o;

DROP TABLE tpcc_pool;
