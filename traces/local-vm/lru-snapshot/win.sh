#!/bin/bash
# The capture's protocol at a 1536 MiB pool: fresh start, 30 s warm-up (16 threads), 45 s measured.
set -u
cd /var/tmp/psidx
S=/var/tmp/psidx/run/mysqld.sock
mariadbd --defaults-file=/var/tmp/psidx/my1536.cnf &
for i in $(seq 60); do mariadb -S $S -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
SB="sysbench oltp_read_write --db-driver=mysql --mysql-socket=$S --mysql-user=root --tables=8 --table-size=1000000 --rand-type=uniform --range-size=100 --report-interval=5"
$SB --threads=16 --time=30 run > win_warmup.log 2>&1
mariadb -S $S -N -e "SHOW GLOBAL STATUS" > win_before.tsv
$SB --threads=16 --time=45 run > win_run.log 2>&1
mariadb -S $S -N -e "SHOW GLOBAL STATUS" > win_after.tsv
$SB --threads=16 --time=45 run > win_run2.log 2>&1
mariadb -S $S -N -e "SHOW GLOBAL STATUS" > win_after2.tsv
mariadb -S $S -e 'shutdown'
sleep 5
echo done
