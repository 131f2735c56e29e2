-- Keys after the load (faster than maintaining them row by row): the primary keys of TPC-C
-- clause 1.3 (history has none), plus the two secondary indexes the transactions need, as in
-- HammerDB's PostgreSQL schema: customers by last name (payment and order-status "by name") and
-- a customer's latest order (order-status).
ALTER TABLE warehouse  ADD CONSTRAINT warehouse_pkey  PRIMARY KEY (w_id);
ALTER TABLE district   ADD CONSTRAINT district_pkey   PRIMARY KEY (d_w_id, d_id);
ALTER TABLE customer   ADD CONSTRAINT customer_pkey   PRIMARY KEY (c_w_id, c_d_id, c_id);
ALTER TABLE new_order  ADD CONSTRAINT new_order_pkey  PRIMARY KEY (no_w_id, no_d_id, no_o_id);
ALTER TABLE orders     ADD CONSTRAINT orders_pkey     PRIMARY KEY (o_w_id, o_d_id, o_id);
ALTER TABLE order_line ADD CONSTRAINT order_line_pkey PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
ALTER TABLE item       ADD CONSTRAINT item_pkey       PRIMARY KEY (i_id);
ALTER TABLE stock      ADD CONSTRAINT stock_pkey      PRIMARY KEY (s_w_id, s_i_id);

CREATE UNIQUE INDEX customer_i2 ON customer (c_w_id, c_d_id, c_last, c_first, c_id);
CREATE UNIQUE INDEX orders_i2   ON orders (o_w_id, o_d_id, o_c_id, o_id);

ANALYZE;
