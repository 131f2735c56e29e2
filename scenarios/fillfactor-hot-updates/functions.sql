-- The five TPROC-C transactions as PL/pgSQL functions, so each is one round trip from a client.
-- Written from the TPC-C specification, clause 2 (the transaction profiles), with HammerDB's
-- TPROC-C simplifications (read for semantics only, nothing copied): customers and items are
-- drawn uniformly by the client, new-order only updates the stock quantity, and 1 % of new orders
-- (the client's rollback draw rbk = 1 of 1-100) name an unused item on their last line and roll
-- back (clause 2.4.1.4). A rolled-back new order raises SQLSTATE TP001 so a client can tell it
-- from a failure.
-- Arguments the client draws (uniformly unless noted; see the workload driver and bench/):
--   neword(w, warehouses, d 1-10, c 1-3000, lines 5-15, rbk 1-100)
--   payment(w, warehouses, d 1-10, c 1-3000, pick 1-100 (≤ 60: by last name), NURand(255,0,999) name, cents 100-500000)
--   delivery(w, carrier 1-10)
--   ostat(w, d 1-10, c 1-3000, pick 1-100, NURand(255,0,999) name)
--   slev(w, d 1-10, threshold 10-20)

-- ─── Helpers (also used by load.sql) ─────────────────────────────────────────────────────────
CREATE FUNCTION tpcc_rand(lo integer, hi integer) RETURNS integer
LANGUAGE sql VOLATILE AS $$ SELECT lo + floor(random() * (hi - lo + 1))::integer $$;

-- A random string of lo..hi (≤ 500) characters: a slice of a pool of random ASCII characters
-- (load.sql).
CREATE FUNCTION tpcc_astr(pool bytea, lo integer, hi integer) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT convert_from(substr(pool, 1 + floor(random() * (length(pool) - 500))::integer, lo + floor(random() * (hi - lo + 1))::integer), 'UTF8')
$$;

-- NURand(A, x, y) of clause 2.1.6.
CREATE FUNCTION tpcc_nurand(a integer, lo integer, hi integer, c integer) RETURNS integer
LANGUAGE sql VOLATILE AS $$ SELECT (((tpcc_rand(0, a) | tpcc_rand(lo, hi)) + c) % (hi - lo + 1)) + lo $$;

-- Customer last names from a number 0-999: three syllables (clause 4.3.2.3).
CREATE FUNCTION tpcc_lastname(n integer) RETURNS varchar
LANGUAGE sql IMMUTABLE AS $$
  SELECT s[n / 100 + 1] || s[n / 10 % 10 + 1] || s[n % 10 + 1]
  FROM (SELECT ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES', 'ESE', 'ANTI', 'CALLY', 'ATION', 'EING']) AS t(s)
$$;

-- A warehouse other than w, uniformly (only called when there are at least two).
CREATE FUNCTION tpcc_other_warehouse(w integer, warehouses integer) RETURNS integer
LANGUAGE sql VOLATILE AS $$ SELECT (w - 1 + tpcc_rand(1, warehouses - 1)) % warehouses + 1 $$;

-- The customer a "by last name" transaction selects: of those with the name in the district,
-- sorted by first name, the one at position ceil(n / 2) (clause 2.5.2.2).
CREATE FUNCTION tpcc_customer_by_name(p_w_id integer, p_d_id integer, p_last varchar) RETURNS integer
LANGUAGE sql STABLE AS $$
  SELECT c_id FROM customer
  WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_last
  ORDER BY c_first
  OFFSET (SELECT (count(*) - 1) / 2 FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_last)
  LIMIT 1
$$;

-- ─── New-order (clause 2.4) ──────────────────────────────────────────────────────────────────
CREATE FUNCTION neword(p_w_id integer, p_warehouses integer, p_d_id integer, p_c_id integer, p_ol_cnt integer, p_rbk integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_rollback boolean := p_rbk = 1;
  v_items integer[];
  v_supply integer[];
  v_qty integer[];
  v_all_local smallint := 1;
  v_discount numeric;
  v_w_tax numeric;
  v_d_tax numeric;
  v_o_id integer;
  v_price numeric;
  v_dist char(24);
  v_total numeric := 0;
BEGIN
  -- The order's lines are chosen first: o_all_local depends on them. 1 % of supplying
  -- warehouses are remote (clause 2.4.1.5).
  FOR n IN 1 .. p_ol_cnt LOOP
    v_items[n] := CASE WHEN v_rollback AND n = p_ol_cnt THEN 100001 ELSE tpcc_rand(1, 100000) END;
    v_supply[n] := CASE WHEN p_warehouses > 1 AND random() < 0.01 THEN tpcc_other_warehouse(p_w_id, p_warehouses) ELSE p_w_id END;
    v_qty[n] := tpcc_rand(1, 10);
    IF v_supply[n] <> p_w_id THEN v_all_local := 0; END IF;
  END LOOP;

  SELECT c_discount INTO v_discount FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;
  UPDATE district SET d_next_o_id = d_next_o_id + 1
  WHERE d_w_id = p_w_id AND d_id = p_d_id
  RETURNING d_next_o_id - 1, d_tax INTO v_o_id, v_d_tax;

  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
  VALUES (v_o_id, p_d_id, p_w_id, p_c_id, now(), NULL, p_ol_cnt, v_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);

  FOR n IN 1 .. p_ol_cnt LOOP
    SELECT i_price INTO v_price FROM item WHERE i_id = v_items[n];
    IF NOT FOUND THEN
      RAISE EXCEPTION 'new-order % of district %/%: item % does not exist, order rolled back', v_o_id, p_w_id, p_d_id, v_items[n]
        USING ERRCODE = 'TP001';
    END IF;
    UPDATE stock
    SET s_quantity = CASE WHEN s_quantity - v_qty[n] >= 10 THEN s_quantity - v_qty[n] ELSE s_quantity - v_qty[n] + 91 END
    WHERE s_w_id = v_supply[n] AND s_i_id = v_items[n]
    RETURNING CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                          WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                          WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
    INTO v_dist;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
    VALUES (v_o_id, p_d_id, p_w_id, n, v_items[n], v_supply[n], NULL, v_qty[n], v_qty[n] * v_price, v_dist);
    v_total := v_total + v_qty[n] * v_price;
  END LOOP;
  -- The order's total (clause 2.4.2.2) is what a terminal would display; the client ignores it.
  v_total := v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
  RETURN v_o_id;
END
$$;

-- ─── Payment (clause 2.5) ────────────────────────────────────────────────────────────────────
CREATE FUNCTION payment(p_w_id integer, p_warehouses integer, p_d_id integer, p_c_id integer,
                        p_pick integer, p_last_num integer, p_cents integer)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  v_amount numeric := p_cents / 100.0;
  v_c_w_id integer := p_w_id;
  v_c_d_id integer := p_d_id;
  v_c_id integer := p_c_id;
  v_w_name varchar;
  v_d_name varchar;
  v_balance numeric;
BEGIN
  -- 15 % of payments are for a customer of another warehouse (clause 2.5.1.2).
  IF p_warehouses > 1 AND random() < 0.15 THEN
    v_c_w_id := tpcc_other_warehouse(p_w_id, p_warehouses);
    v_c_d_id := tpcc_rand(1, 10);
  END IF;

  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w_id RETURNING w_name INTO v_w_name;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w_id AND d_id = p_d_id RETURNING d_name INTO v_d_name;

  IF p_pick <= 60 THEN
    v_c_id := tpcc_customer_by_name(v_c_w_id, v_c_d_id, tpcc_lastname(p_last_num));
  END IF;
  -- Bad-credit customers get the payment prepended to c_data, which keeps 500 characters.
  UPDATE customer
  SET c_balance = c_balance - v_amount,
      c_ytd_payment = c_ytd_payment + v_amount,
      c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE WHEN c_credit = 'BC'
                    THEN left(concat_ws(' ', v_c_id, v_c_d_id, v_c_w_id, p_d_id, p_w_id, v_amount) || ' | ' || c_data, 500)
                    ELSE c_data END
  WHERE c_w_id = v_c_w_id AND c_d_id = v_c_d_id AND c_id = v_c_id
  RETURNING c_balance INTO v_balance;

  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  VALUES (v_c_id, v_c_d_id, v_c_w_id, p_d_id, p_w_id, now(), v_amount, left(v_w_name || '    ' || v_d_name, 24));
  RETURN v_balance;
END
$$;

-- ─── Delivery (clause 2.7), the whole batch of ten districts in one transaction ───────────────
CREATE FUNCTION delivery(p_w_id integer, p_carrier_id integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_o_id integer;
  v_c_id integer;
  v_total numeric;
  v_delivered integer := 0;
BEGIN
  FOR d IN 1 .. 10 LOOP
    -- The district's oldest undelivered order; a district without one is skipped (clause
    -- 2.7.4.2), as is one whose oldest order a concurrent delivery just took.
    DELETE FROM new_order
    WHERE no_w_id = p_w_id AND no_d_id = d
      AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = p_w_id AND no_d_id = d)
    RETURNING no_o_id INTO v_o_id;
    CONTINUE WHEN NOT FOUND;

    UPDATE orders SET o_carrier_id = p_carrier_id
    WHERE o_w_id = p_w_id AND o_d_id = d AND o_id = v_o_id
    RETURNING o_c_id INTO v_c_id;
    WITH delivered AS (
      UPDATE order_line SET ol_delivery_d = now()
      WHERE ol_w_id = p_w_id AND ol_d_id = d AND ol_o_id = v_o_id
      RETURNING ol_amount
    )
    SELECT sum(ol_amount) INTO v_total FROM delivered;
    UPDATE customer SET c_balance = c_balance + coalesce(v_total, 0), c_delivery_cnt = c_delivery_cnt + 1
    WHERE c_w_id = p_w_id AND c_d_id = d AND c_id = v_c_id;
    v_delivered := v_delivered + 1;
  END LOOP;
  RETURN v_delivered;
END
$$;

-- ─── Order-status (clause 2.6), read-only ────────────────────────────────────────────────────
CREATE FUNCTION ostat(p_w_id integer, p_d_id integer, p_c_id integer, p_pick integer, p_last_num integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_c_id integer := p_c_id;
  v_balance numeric;
  v_o_id integer;
  v_lines integer;
BEGIN
  IF p_pick <= 60 THEN
    v_c_id := tpcc_customer_by_name(p_w_id, p_d_id, tpcc_lastname(p_last_num));
  END IF;
  SELECT c_balance INTO v_balance FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
  SELECT o_id INTO v_o_id FROM orders
  WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
  ORDER BY o_id DESC LIMIT 1;
  SELECT count(*) INTO v_lines FROM (
    SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
    WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id
  ) AS lines;
  RETURN v_lines;
END
$$;

-- ─── Stock-level (clause 2.8), read-only ─────────────────────────────────────────────────────
CREATE FUNCTION slev(p_w_id integer, p_d_id integer, p_threshold integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_next integer;
  v_low integer;
BEGIN
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  -- Distinct items of the district's last 20 orders whose stock is below the threshold.
  SELECT count(DISTINCT s_i_id) INTO v_low
  FROM order_line JOIN stock ON s_w_id = p_w_id AND s_i_id = ol_i_id
  WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id >= v_next - 20 AND ol_o_id < v_next
    AND s_quantity < p_threshold;
  RETURN v_low;
END
$$;
