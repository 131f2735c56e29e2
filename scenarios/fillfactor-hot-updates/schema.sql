-- The nine TPROC-C tables, written from the TPC-C specification (clause 1.3, "Table Layouts")
-- with HammerDB's PostgreSQL choices: no foreign keys, no partitioning, keys added after the load
-- (keys.sql). Column types follow the specification's field definitions; fillfactor is left at
-- the default (100) here and set per variant.
-- Autovacuum follows the server's setting (the article ran with Aurora's defaults, i.e. on).

CREATE TABLE warehouse (
  w_id       integer       NOT NULL,
  w_name     varchar(10),
  w_street_1 varchar(20),
  w_street_2 varchar(20),
  w_city     varchar(20),
  w_state    char(2),
  w_zip      char(9),
  w_tax      numeric(4, 4),
  w_ytd      numeric(12, 2)
);

CREATE TABLE district (
  d_id        smallint      NOT NULL,
  d_w_id      integer       NOT NULL,
  d_name      varchar(10),
  d_street_1  varchar(20),
  d_street_2  varchar(20),
  d_city      varchar(20),
  d_state     char(2),
  d_zip       char(9),
  d_tax       numeric(4, 4),
  d_ytd       numeric(12, 2),
  d_next_o_id integer
);

CREATE TABLE customer (
  c_id           integer      NOT NULL,
  c_d_id         smallint     NOT NULL,
  c_w_id         integer      NOT NULL,
  c_first        varchar(16),
  c_middle       char(2),
  c_last         varchar(16),
  c_street_1     varchar(20),
  c_street_2     varchar(20),
  c_city         varchar(20),
  c_state        char(2),
  c_zip          char(9),
  c_phone        char(16),
  c_since        timestamp,
  c_credit       char(2),
  c_credit_lim   numeric(12, 2),
  c_discount     numeric(4, 4),
  c_balance      numeric(12, 2),
  c_ytd_payment  numeric(12, 2),
  c_payment_cnt  integer,
  c_delivery_cnt integer,
  c_data         varchar(500)
);

CREATE TABLE history (
  h_c_id   integer,
  h_c_d_id smallint,
  h_c_w_id integer,
  h_d_id   smallint,
  h_w_id   integer,
  h_date   timestamp,
  h_amount numeric(6, 2),
  h_data   varchar(24)
);

CREATE TABLE new_order (
  no_o_id integer  NOT NULL,
  no_d_id smallint NOT NULL,
  no_w_id integer  NOT NULL
);

CREATE TABLE orders (
  o_id         integer  NOT NULL,
  o_d_id       smallint NOT NULL,
  o_w_id       integer  NOT NULL,
  o_c_id       integer,
  o_entry_d    timestamp,
  o_carrier_id smallint,
  o_ol_cnt     smallint,
  o_all_local  smallint
);

CREATE TABLE order_line (
  ol_o_id        integer  NOT NULL,
  ol_d_id        smallint NOT NULL,
  ol_w_id        integer  NOT NULL,
  ol_number      smallint NOT NULL,
  ol_i_id        integer,
  ol_supply_w_id integer,
  ol_delivery_d  timestamp,
  ol_quantity    smallint,
  ol_amount      numeric(6, 2),
  ol_dist_info   char(24)
);

CREATE TABLE item (
  i_id    integer NOT NULL,
  i_im_id integer,
  i_name  varchar(24),
  i_price numeric(5, 2),
  i_data  varchar(50)
);

CREATE TABLE stock (
  s_i_id       integer NOT NULL,
  s_w_id       integer NOT NULL,
  s_quantity   smallint,
  s_dist_01    char(24),
  s_dist_02    char(24),
  s_dist_03    char(24),
  s_dist_04    char(24),
  s_dist_05    char(24),
  s_dist_06    char(24),
  s_dist_07    char(24),
  s_dist_08    char(24),
  s_dist_09    char(24),
  s_dist_10    char(24),
  s_ytd        numeric(8, 0),
  s_order_cnt  smallint,
  s_remote_cnt smallint,
  s_data       varchar(50)
);
