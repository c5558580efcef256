// The core's address map (model/isa/address_map.h), access patterns (access_pattern.h) and
// regions (region.h): partition windows of an ADDR4 (256 KiB SBUF, 32 KiB PSUM per partition,
// hardware-facts §I.2), linear addresses, element order innermost first, byte bounds, overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "model/common/error.h"
#include "model/isa/access_pattern.h"
#include "model/isa/address_map.h"
#include "model/isa/region.h"
#include "tests/support/error_of.h"

namespace neuronsim::model::isa {
namespace {

using test::error_of;

TEST(AddressMap, LinearAddressesArePartitionTimesItsBytesPlusOffset) {
    const AddressMap m(128, 192 * 1024, 16 * 1024, uint64_t{1} << 32);
    EXPECT_EQ(m.linear({MemSpace::Sbuf, 0, 0}, 4, "t"), 0u);
    EXPECT_EQ(m.linear({MemSpace::Sbuf, 3, 100}, 4, "t"), 3u * 192 * 1024 + 100);
    EXPECT_EQ(m.linear({MemSpace::Psum, 127, 16 * 1024 - 4}, 4, "t"), 127u * 16 * 1024 + 16 * 1024 - 4);
    EXPECT_EQ(m.linear({MemSpace::Dram, 0, 0x1234}, 8, "t"), 0x1234u);
    EXPECT_EQ(m.bytes_per_partition(MemSpace::Sbuf), 192u * 1024);
    EXPECT_EQ(m.bytes_per_partition(MemSpace::Psum), 16u * 1024);
}

TEST(AddressMap, AccessesPastAPartitionOrTheMemoryNameThePlace) {
    const AddressMap m(128, 192 * 1024, 16 * 1024, 1 << 20);
    EXPECT_NE(error_of([&] { m.linear({MemSpace::Sbuf, 128, 0}, 4, "act[3] in"); }).find("act[3] in: partition 128 does not exist"), std::string::npos);
    EXPECT_NE(error_of([&] { m.linear({MemSpace::Sbuf, 0, 192 * 1024 - 2}, 4, "w"); }).find("past the partition's 196608 bytes"), std::string::npos);
    EXPECT_NE(error_of([&] { m.linear({MemSpace::Dram, 0, (1 << 20) - 4}, 8, "w"); }).find("is past the 1048576-byte DRAM"), std::string::npos);
    EXPECT_EQ(error_of([&] { m.linear({MemSpace::Dram, 0, (1 << 20) - 8}, 8, "w"); }), "");
    // rows: every partition of the range must exist
    EXPECT_EQ(error_of([&] { m.check_rows({MemSpace::Sbuf, 64, 0}, 64, 16, "w"); }), "");
    EXPECT_NE(error_of([&] { m.check_rows({MemSpace::Sbuf, 64, 0}, 65, 16, "w"); }).find("partitions 64..128 do not all exist"), std::string::npos);
}

TEST(AddressMap, APartitionLargerThanItsAddr4WindowIsRefused) {
    EXPECT_EQ(error_of([] { AddressMap(128, 256 * 1024, 32 * 1024, 1 << 20); }), "");
    EXPECT_NE(error_of([] { AddressMap(128, 256 * 1024 + 1, 16 * 1024, 1 << 20); }).find("exceeds the 262144-byte SBUF partition window"), std::string::npos);
    EXPECT_NE(error_of([] { AddressMap(128, 1024, 32 * 1024 + 1, 1 << 20); }).find("exceeds the 32768-byte PSUM partition window"), std::string::npos);
}

// The walk against the definition: element (i0, i1, i2) at start + sum(i_k * step_k), i0 fastest.
TEST(AccessPattern, ElementsComeInnermostFirstAtTheirOffsets) {
    const int16_t step[3] = {2, -10, 40};
    const uint16_t num[3] = {3, 2, 4};
    const AccessPattern p = make_access_pattern(64, step, num, 3, 4, "src");
    EXPECT_EQ(p.n, 24u);
    std::vector<int64_t> want;
    for (int64_t i2 = 0; i2 < 4; ++i2)
        for (int64_t i1 = 0; i1 < 2; ++i1)
            for (int64_t i0 = 0; i0 < 3; ++i0) want.push_back(64 + 4 * (2 * i0 - 10 * i1 + 40 * i2));
    const int64_t lo = *std::min_element(want.begin(), want.end()), hi = *std::max_element(want.begin(), want.end()) + 4;
    EXPECT_EQ(p.lo, lo);
    EXPECT_EQ(p.hi, hi);
    EXPECT_EQ(p.span(), uint64_t(hi - lo));
    AccessPattern::Cursor c(p);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(int64_t(c.next()) + p.lo, want[i]) << i;
    EXPECT_EQ(p.offset(2, 1, 3), want[3 * 6 + 1 * 3 + 2]);  // (i2 * 6 + i1 * 3 + i0)
}

TEST(AccessPattern, EmptyStridedAndOutOfBoundsPatterns) {
    const int16_t step[3] = {1, 0, 0};
    const uint16_t zero[3] = {0, 5, 1};
    EXPECT_EQ(make_access_pattern(0, step, zero, 2, 4, "x").n, 0u);
    EXPECT_EQ(make_access_pattern(0, step, zero, 2, 4, "x").span(), 0u);
    const int16_t back[3] = {-1, 0, 0};
    const uint16_t four[3] = {4, 1, 1};
    EXPECT_NE(error_of([&] { make_access_pattern(8, back, four, 1, 4, "act[0] src"); }).find("act[0] src: the access pattern reaches 4 bytes below"),
              std::string::npos);
    EXPECT_EQ(error_of([&] { make_access_pattern(12, back, four, 1, 4, "x"); }), "");
    // 16 bytes or more between consecutive elements: strided (public-figures §1.4)
    const int16_t s4[3] = {4, 0, 0}, s2[3] = {2, 0, 0};
    EXPECT_TRUE(make_access_pattern(0, s4, four, 1, 4, "x").strided());
    EXPECT_FALSE(make_access_pattern(0, s2, four, 1, 4, "x").strided());
    const AccessPattern p = make_access_pattern(1000, s4, four, 1, 4, "x");  // bytes [1000, 1052)
    EXPECT_EQ(error_of([&] { check_in_partition(p, 1052, "src", "at act[1]"); }), "");
    EXPECT_NE(error_of([&] {
                  check_in_partition(p, 1051, "src", "at act[1]", "sbuf partition");
              }).find("src at act[1]: the pattern touches bytes [1000, 1052) of a 1051-byte sbuf partition"),
              std::string::npos);
}

TEST(Region, OverlapNeedsTheSameSpaceAndBothRanges) {
    const Region a{MemSpace::Sbuf, 0, 64, 0, 512};
    EXPECT_TRUE(overlap(a, {MemSpace::Sbuf, 63, 64, 511, 600}));
    EXPECT_FALSE(overlap(a, {MemSpace::Sbuf, 64, 128, 0, 512})) << "partitions are half-open";
    EXPECT_FALSE(overlap(a, {MemSpace::Sbuf, 0, 64, 512, 1024})) << "bytes are half-open";
    EXPECT_FALSE(overlap(a, {MemSpace::Psum, 0, 64, 0, 512})) << "another memory";
    EXPECT_TRUE(any_overlap({{MemSpace::Psum, 0, 1, 0, 4}, a}, {{MemSpace::Sbuf, 10, 11, 100, 104}}));
    EXPECT_FALSE(any_overlap({a}, {}));
}

}  // namespace
}  // namespace neuronsim::model::isa
