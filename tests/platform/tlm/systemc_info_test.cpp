#include <gtest/gtest.h>

#include "platform/tlm/systemc_info.h"

// Links against Debian's SystemC 2.3.4 (built for C++17): this fails to link on a -std mismatch.
TEST(SystemC, LinksAndReportsItsRelease) { EXPECT_EQ(neuronsim::platform::systemc_release().rfind("2.3.", 0), 0u) << neuronsim::platform::systemc_release(); }
