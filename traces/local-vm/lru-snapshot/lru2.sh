#!/bin/bash
# The buffer pool's pages by LRU position, index and dirty state, during oltp_read_write at a 1536 MiB pool.
set -u
cd /var/tmp/psidx
S=/var/tmp/psidx/run/mysqld.sock
mariadbd --defaults-file=/var/tmp/psidx/my1536.cnf &
for i in $(seq 60); do mariadb -S $S -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
SB="sysbench oltp_read_write --db-driver=mysql --mysql-socket=$S --mysql-user=root --tables=8 --table-size=1000000 --rand-type=uniform --range-size=100"
$SB --threads=16 --time=150 --report-interval=10 run > lru_run.log 2>&1 &
sleep 75
mariadb -S $S -N -e "SHOW GLOBAL STATUS" > lru2_status_a.tsv
sleep 40
mariadb -S $S -N -e "SHOW GLOBAL STATUS" > lru2_status_b.tsv
mariadb -S $S -N -e "SELECT LRU_POSITION, PAGE_TYPE, IFNULL(INDEX_NAME,'-'), OLDEST_MODIFICATION, NEWEST_MODIFICATION, IS_OLD, ACCESS_TIME, FREE_PAGE_CLOCK, NUMBER_RECORDS, SPACE FROM information_schema.INNODB_BUFFER_PAGE_LRU" > lru_pages2.tsv
date
wait
mariadb -S $S -N -e "SHOW GLOBAL STATUS" > lru2_status_c.tsv
mariadb -S $S -e 'shutdown'
echo done
