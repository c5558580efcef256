// What plots, --where and the sensitivity report read from a point (sweep/record_fields.h),
// and `neuronsim compare`'s deltas (sweep/compare.h): fields, params and stats by name or by
// prefix, filters that match text or the same number, the differing numeric stats with their
// difference and relative change.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/common/error.h"
#include "sweep/compare.h"
#include "sweep/record_fields.h"

namespace neuronsim::sweep {
namespace {

FlatStat integer(const std::string& k, int64_t v) { return {k, FlatValue{FlatValue::Kind::integer, v, 0, {}}}; }
FlatStat real(const std::string& k, double v) { return {k, FlatValue{FlatValue::Kind::real, 0, v, {}}}; }
FlatStat text(const std::string& k, const std::string& v) { return {k, FlatValue{FlatValue::Kind::text, 0, 0, v}}; }

PointRecord point() {
    PointRecord r;
    r.trace = "t.trace";
    r.generation = "mariana";
    r.repeat = 2;
    r.params = {{"act.clock_ghz", "1.5"}, {"core.simulated_ps", "7"}};
    r.stats = {integer("core.simulated_ps", 350000), text("core.derived.critical_engine", "act")};
    return r;
}

TEST(RecordFields, FieldsParamsAndStatsByNameOrPrefix) {
    const PointRecord r = point();
    std::string v;
    ASSERT_TRUE(record_field(r, "generation", v));
    EXPECT_EQ(v, "mariana");
    ASSERT_TRUE(record_field(r, "repeat", v));
    EXPECT_EQ(v, "2");
    ASSERT_TRUE(record_field(r, "act.clock_ghz", v));
    EXPECT_EQ(v, "1.5");
    // A name that is both a param and a stat: the param unless stat: says otherwise.
    ASSERT_TRUE(record_field(r, "core.simulated_ps", v));
    EXPECT_EQ(v, "7");
    ASSERT_TRUE(record_field(r, "stat:core.simulated_ps", v));
    EXPECT_EQ(v, "350000");
    ASSERT_TRUE(record_field(r, "param:core.simulated_ps", v));
    EXPECT_EQ(v, "7");
    EXPECT_FALSE(record_field(r, "param:core.derived.critical_engine", v));
    EXPECT_FALSE(record_field(r, "nothing", v));
}

TEST(RecordFields, WhereMatchesTextOrTheSameNumber) {
    const PointRecord r = point();
    EXPECT_TRUE(matches_where(r, parse_where({"act.clock_ghz=1.50", "generation=mariana"})));
    EXPECT_FALSE(matches_where(r, parse_where({"act.clock_ghz=1.6"})));
    EXPECT_FALSE(matches_where(r, parse_where({"missing=1"})));
    EXPECT_TRUE(matches_where(r, {}));
    EXPECT_THROW(parse_where({"=1"}), Error);
    EXPECT_THROW(parse_where({"no_equals"}), Error);
    double d = 0;
    EXPECT_TRUE(parse_number("2.5e3", d));
    EXPECT_EQ(d, 2500);
    EXPECT_FALSE(parse_number("2.5x", d));
    EXPECT_FALSE(parse_number("inf", d)) << "a finite number only";
}

TEST(Compare, DifferingStatsWithTheirChange) {
    const std::vector<FlatStat> a = {integer("core.simulated_ps", 1000), real("core.derived.act_utilisation", 0.5), text("core.derived.critical_engine", "act"),
                                     integer("core.act.instructions", 4)};
    const std::vector<FlatStat> b = {integer("core.simulated_ps", 750), real("core.derived.act_utilisation", 0.5), text("core.derived.critical_engine", "dma"),
                                     integer("core.act.instructions", 4), integer("core.pool.instructions", 2)};
    const std::vector<StatDelta> d = compare_stats(a, b, {"**"});
    ASSERT_EQ(d.size(), 3u) << "equal values are left out";
    EXPECT_EQ(d[0].key, "core.simulated_ps");
    EXPECT_TRUE(d[0].numeric);
    EXPECT_EQ(d[0].difference, -250);
    EXPECT_EQ(d[0].relative, -0.25);
    EXPECT_EQ(d[1].key, "core.derived.critical_engine");
    EXPECT_FALSE(d[1].numeric);
    EXPECT_EQ(d[1].a, "act");
    EXPECT_EQ(d[1].b, "dma");
    EXPECT_EQ(d[2].key, "core.pool.instructions") << "B's own keys after A's";
    EXPECT_EQ(d[2].a, "");
    EXPECT_EQ(compare_stats(a, b, {"**"}, true).size(), 5u) << "all: equal ones too";
    EXPECT_EQ(compare_stats(a, b, {"core.act.*"}).size(), 0u) << "only the kept keys";
}

}  // namespace
}  // namespace neuronsim::sweep
