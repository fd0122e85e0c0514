// An fio-like job (ioengine=libaio, direct=1): numjobs x iodepth IOs kept in flight per compute node
// (closed loop), or Poisson arrivals at a fixed rate (open loop, fio's rate_process=poisson).
#pragma once
#include "platform/platform.h"
#include "sim/measurement.h"

namespace poolsim {

void start_fio(Platform& platform, Measurement& measurement, const FioConfig& config, std::uint64_t seed);

}  // namespace poolsim
