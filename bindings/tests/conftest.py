"""Shared fixtures: tiny scenarios that simulate in a few hundredths of a second."""

import os
import pathlib

import pytest

import poolsim

ROOT = pathlib.Path(__file__).resolve().parents[2]

# 16 KiB random reads at QD1 on one local SSD, a few milliseconds simulated.
TINY_FIO = """\
name: tiny-fio
compute: {count: 1, cores: 4}
storage:
  kind: local
  device: pcie4-nvme-tlc
  nodes:
    - {name: flash1, cores: 4, device: pcie4-nvme-tlc, devices: 1, ports: 1}
  volume: {nodes: [flash1], stripe: 64KiB}
fabric: {preset: ib-hdr100}
workload:
  kind: fio
  fio: {rw: randread, bs: 16KiB, numjobs: 1, iodepth: 1}
simulation: {seed: 1, warmup: 1ms, batch: 1ms, min_batches: 3, target_ci: 2%, max_duration: 4ms}
"""

# sysbench oltp_read_write on a small data set, cached, 4 threads.
TINY_SYSBENCH = """\
name: tiny-sysbench
compute: {cores: 8}
storage:
  kind: local
  device: pcie4-nvme-tlc
  nodes:
    - {name: flash1, cores: 8, device: pcie4-nvme-tlc, devices: 2, ports: 1}
  volume: {nodes: [flash1], stripe: 64KiB}
fabric: {preset: ib-hdr100}
database: {buffer_pool: 64MiB}
workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 20000, rand_type: uniform, threads: 4}
simulation: {seed: 1, warmup: 20ms, batch: 20ms, min_batches: 3, target_ci: 2%, max_duration: 60ms}
"""


@pytest.fixture
def root():
    return ROOT


@pytest.fixture
def tiny_fio():
    return poolsim.Scenario(TINY_FIO, origin="tiny-fio.yaml")


@pytest.fixture
def tiny_sysbench():
    return poolsim.Scenario(TINY_SYSBENCH, origin="tiny-sysbench.yaml")


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def child_pids():
    """Children of this process (all threads), zombies included."""
    pids = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as f:
                pids += [int(p) for p in f.read().split()]
        except FileNotFoundError:
            pass
    return sorted(set(pids))
