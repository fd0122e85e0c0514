#!/bin/bash
# Measures sysbench's index sizes (mysql.innodb_index_stats) after prepare and as oltp_read_write runs.
set -u
cd /var/tmp/psidx
S=/var/tmp/psidx/run/mysqld.sock
stats() {
  mariadb -S $S -N -e "ANALYZE TABLE sbtest.sbtest1, sbtest.sbtest2, sbtest.sbtest3, sbtest.sbtest4, sbtest.sbtest5, sbtest.sbtest6, sbtest.sbtest7, sbtest.sbtest8" >/dev/null
  mariadb -S $S -N -e "SELECT '$1', table_name, index_name, stat_name, stat_value FROM mysql.innodb_index_stats WHERE database_name='sbtest' AND stat_name IN ('n_leaf_pages','size') ORDER BY table_name, index_name, stat_name" >> stats.tsv
  mariadb -S $S -N -e "SHOW GLOBAL STATUS LIKE 'Com_commit'; SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_split'; SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'" | sed "s/^/$1\t/" >> status.tsv
}
rm -rf datadir stats.tsv status.tsv; mkdir datadir; chown mysql:mysql datadir run
mariadb-install-db --no-defaults --datadir=/var/tmp/psidx/datadir --user=mysql > install.log 2>&1
mariadbd --defaults-file=/var/tmp/psidx/my.cnf & 
for i in $(seq 60); do mariadb -S $S -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
mariadb -S $S -e 'CREATE DATABASE sbtest'
SB="sysbench oltp_read_write --db-driver=mysql --mysql-socket=$S --mysql-user=root --tables=8 --table-size=1000000"
date; $SB --threads=8 prepare > prepare.log 2>&1; date
stats prepared
for step in 1 2 3 4 5 6 7 8 9 10 11 12; do
  $SB --threads=16 --time=60 --rand-type=uniform --range-size=100 run > run$step.log 2>&1
  stats run$step
done
mariadb -S $S -e 'shutdown'
echo done
