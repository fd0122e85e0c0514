#include <gtest/gtest.h>

#include "core/huge_pages.h"
#include "core/position_ring.h"
#include "core/units.h"
#include "core/utf8.h"

#include <cstdint>
#include <deque>
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

// Positions keep naming their elements, and the elements their flags, through pushes at both ends,
// pops and growth, across the 32-bit wrap of the position counter; the ring agrees with a deque
// driven the same way.
TEST(PositionRing, PositionsSurviveGrowthAndWrapAndMatchADeque) {
  PositionRing ring(5000);  // close to 0: the front pushes below cross the wrap
  std::deque<std::pair<std::uint32_t, std::uint32_t>> model;  // (position, value), front first
  std::uint32_t next_value = 0;
  // Every third value has its flag cleared once pushed; the others keep theirs.
  auto push = [&](bool front) {
    const std::uint32_t pos = front ? ring.push_front(next_value) : ring.push_back(next_value);
    EXPECT_TRUE(ring.flagged(pos));
    if (next_value % 3 == 0) ring.clear_flag(pos);
    if (front) model.emplace_front(pos, next_value); else model.emplace_back(pos, next_value);
    ++next_value;
  };
  for (int step = 0; step < 200000; ++step) {
    // Front pushes dominate for a while, so begin() walks far below its start and wraps past 0.
    const int op = step < 150000 ? step % 5 : step % 3;
    if (op == 0 || op == 3) {
      push(/*front=*/true);
    } else if (op == 1) {
      push(/*front=*/false);
    } else if (!model.empty()) {
      if (op == 2) {
        ring.pop_back();
        model.pop_back();
      } else {
        ring.pop_front();
        model.pop_front();
      }
    }
    ASSERT_EQ(ring.size(), model.size());
    if (step % 1000 == 0) {
      for (const auto& [pos, value] : model) {
        ASSERT_TRUE(ring.holds(pos));
        ASSERT_EQ(ring.at(pos), value);
        ASSERT_EQ(ring.flagged(pos), value % 3 != 0);
      }
      if (!model.empty()) {
        EXPECT_FALSE(ring.holds(model.front().first - 1));
        EXPECT_FALSE(ring.holds(model.back().first + 1));
      }
    }
  }
  EXPECT_GT(ring.capacity(), 1024u);  // it grew
  EXPECT_GT(ring.begin(), 0xff000000u);  // and its positions wrapped past 0
}

TEST(Utf8, AUtf16OrUtf32TextIsSaidToBeOne) {
  // A YAML file saved as UTF-16 was refused with a hint about Latin-1.
  using namespace std::string_literals;
  for (const auto& [text, encoding] : {std::pair{"\xFF\xFEn\0a\0"s, "UTF-16"}, {"\xFE\xFF\0n\0a"s, "UTF-16"},
                                       {"\xFF\xFE\0\0n\0\0\0"s, "UTF-32"}, {"\0\0\xFE\xFF\0\0\0n"s, "UTF-32"},
                                       {"n\0a\0m\0e\0"s, "UTF-16LE"}, {"\0n\0a\0m\0e"s, "UTF-16BE"}}) {
    try {
      poolsim::require_utf8(text, "f.yaml");
      ADD_FAILURE() << "not refused: " << encoding;
    } catch (const poolsim::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("f.yaml:1:1: the text is ") + encoding + ", not UTF-8"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("Latin-1"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(poolsim::require_utf8("\xEF\xBB\xBFname: x\n", "f.yaml"));  // UTF-8 with its mark
}

TEST(Utf8, FindsTheFirstByteThatIsNotWellFormed) {
  using poolsim::invalid_utf8_at;
  constexpr auto kNone = std::string_view::npos;
  EXPECT_EQ(invalid_utf8_at("plain ascii"), kNone);
  EXPECT_EQ(invalid_utf8_at("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), kNone);  // é, €, an emoji
  EXPECT_EQ(invalid_utf8_at("caf\xE9"), 3u);                                        // Latin-1
  EXPECT_EQ(invalid_utf8_at("ab\xC3"), 2u);                                         // cut short
  EXPECT_EQ(invalid_utf8_at("\xC0\xAF"), 0u);                                       // overlong '/'
  EXPECT_EQ(invalid_utf8_at("x\xED\xA0\x80"), 1u);                                  // a surrogate
  EXPECT_EQ(invalid_utf8_at("\xF4\x90\x80\x80"), 0u);                               // past U+10FFFF
  EXPECT_EQ(invalid_utf8_at("\xE2\x82"), 0u);
  EXPECT_THROW(poolsim::require_utf8("a: 1\nb: \xE9\n", "f.yaml"), poolsim::InputError);
  try {
    poolsim::require_utf8("a: 1\nb: \xC3\xA9\xE9\n", "f.yaml");
    ADD_FAILURE() << "not refused";
  } catch (const poolsim::InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 5);  // é is one character
  }
}
