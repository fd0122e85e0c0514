#include <gtest/gtest.h>

#include "core/huge_pages.h"
#include "core/units.h"

#include <cstdint>
#include <vector>

using namespace poolsim;

TEST(Units, ParsesEachDimension) {
  EXPECT_DOUBLE_EQ(*parse_quantity("186GiB", Dimension::Bytes, nullptr), 186.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse_quantity("12.5GB", Dimension::Bytes, nullptr), 12.5e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("100Gbps", Dimension::BytesPerSecond, nullptr), 12.5e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("6.5GB/s", Dimension::BytesPerSecond, nullptr), 6.5e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("80us", Dimension::Seconds, nullptr), 80e-6);
  EXPECT_DOUBLE_EQ(*parse_quantity("2.6GHz", Dimension::Hertz, nullptr), 2.6e9);
  EXPECT_DOUBLE_EQ(*parse_quantity("37%", Dimension::Ratio, nullptr), 0.37);
  EXPECT_DOUBLE_EQ(*parse_quantity("180K/s", Dimension::PerSecond, nullptr), 180e3);
}

TEST(Units, BareNumberIsAnErrorWhereAUnitIsNeeded) {
  std::string error;
  EXPECT_FALSE(parse_quantity("80", Dimension::Seconds, &error));
  EXPECT_NE(error.find("no unit"), std::string::npos) << error;
  EXPECT_TRUE(parse_quantity("0.37", Dimension::Ratio, nullptr));  // a ratio needs none
}

TEST(Units, UnknownUnitNamesTheAcceptedOnes) {
  std::string error;
  EXPECT_FALSE(parse_quantity("80 parsecs", Dimension::Seconds, &error));
  EXPECT_NE(error.find("unknown unit"), std::string::npos) << error;
  EXPECT_NE(error.find("us"), std::string::npos) << error;
  EXPECT_FALSE(parse_quantity("GiB", Dimension::Bytes, &error));
}

TEST(Units, FormatsReadably) {
  EXPECT_EQ(format_quantity(15e-6, Dimension::Seconds), "15us");
  EXPECT_EQ(format_quantity(16384, Dimension::Bytes), "16KiB");
}

// The per-page arrays' allocator: a large array starts on a 2 MiB boundary (so that the kernel can
// back it with huge pages), a small one is ordinary, and both behave as vectors.
TEST(HugePageAllocator, AlignsLargeArraysAndKeepsSmallOnesOrdinary) {
  using Alloc = HugePageAllocator<std::uint64_t>;
  std::vector<std::uint64_t, Alloc> large(Alloc::kMinBytes / sizeof(std::uint64_t) + 1, 7);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % Alloc::kHugePageBytes, 0u);
  EXPECT_EQ(large.front(), 7u);
  EXPECT_EQ(large.back(), 7u);
  std::vector<std::uint64_t, Alloc> small(16, 3);
  small.resize(1000, 4);  // reallocates through the ordinary branch
  EXPECT_EQ(small[15], 3u);
  EXPECT_EQ(small[999], 4u);
  large.resize(8);  // a shrink keeps the allocation: freed with its own branch at destruction
  EXPECT_EQ(large[7], 7u);
}
