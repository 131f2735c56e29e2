-- The article's table (gywndi 2012): an auto-increment key, partitioned by key into 3.
CREATE TABLE test (
  NO int NOT NULL AUTO_INCREMENT,
  EMAIL varchar(128) DEFAULT NULL,
  NAME varchar(32) NOT NULL,
  PRIMARY KEY (NO)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4
PARTITION BY KEY () PARTITIONS 3;
