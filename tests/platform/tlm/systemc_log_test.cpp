// The library's messages reach SystemC's report handler once a device exists (a VP's filters
// and verbosity apply), unless the host routed them elsewhere first; nothing is printed by the
// library itself.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>

#include "model/common/log.h"
#include "neuronsim/neuron_core.h"
#include "tests/support/device_host.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

std::vector<std::string> reports;
void capture(const sc_core::sc_report& r, const sc_core::sc_actions&) {
    reports.push_back(std::string(r.get_msg_type()) + "|" + std::to_string(r.get_severity()) + "|" + std::to_string(r.get_verbosity()) + "|" + r.get_msg());
}

class SystemCLog : public SystemCTest {};

TEST_F(SystemCLog, ADeviceRoutesLibraryMessagesThroughTheReportHandler) {
    model::set_log_sink(nullptr);
    model::log(model::LogLevel::Warning, "pwp", "before any device");  // no sink: dropped
    const auto previous = sc_core::sc_report_handler::set_handler(capture);
    {
        NeuronCore core("core", cfg_of("mariana"));
        model::log(model::LogLevel::Warning, "pwp", "a profile warning");
        model::log(model::LogLevel::Debug, "pool", "hidden at the default verbosity");
        const int verbosity = sc_core::sc_report_handler::set_verbosity_level(sc_core::SC_DEBUG);
        model::log(model::LogLevel::Debug, "pool", "a firmware line");
        sc_core::sc_report_handler::set_verbosity_level(verbosity);
    }
    sc_core::sc_report_handler::set_handler(previous);
    ASSERT_EQ(reports.size(), 2u);
    EXPECT_EQ(reports[0], "neuronsim/pwp|" + std::to_string(sc_core::SC_WARNING) + "|" + std::to_string(sc_core::SC_MEDIUM) + "|a profile warning");
    EXPECT_EQ(reports[1], "neuronsim/pool|" + std::to_string(sc_core::SC_INFO) + "|" + std::to_string(sc_core::SC_DEBUG) + "|a firmware line");
}

TEST_F(SystemCLog, AHostsOwnSinkIsKept) {
    std::vector<std::string> mine;
    model::set_log_sink([&](model::LogLevel, const char* topic, const std::string& m) { mine.push_back(std::string(topic) + ": " + m); });
    reports.clear();
    const auto previous = sc_core::sc_report_handler::set_handler(capture);
    {
        NeuronCore core("core", cfg_of("mariana"));
        model::log(model::LogLevel::Info, "pwp", "to the host");
    }
    sc_core::sc_report_handler::set_handler(previous);
    model::set_log_sink(nullptr);
    EXPECT_TRUE(reports.empty());
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_EQ(mine[0], "pwp: to the host");
}

}  // namespace
}  // namespace neuronsim::test
