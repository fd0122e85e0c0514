#include <gtest/gtest.h>

#include "core/units.h"

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
