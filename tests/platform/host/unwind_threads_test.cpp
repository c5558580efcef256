// A host that owns the simulation unwinds the threads still suspended when it ends, so what
// their stacks own is destroyed (an interrupted `neuronsim run` leaked an instruction's
// record from the retire thread's stack: LeakSanitizer failed the run).
#include <gtest/gtest.h>

#include <memory>
#include <systemc>

#include "platform/host/unwind_threads.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

struct Flag {
    bool* destroyed;
    ~Flag() { *destroyed = true; }
};

struct Sleeper : sc_core::sc_module {
    SC_HAS_PROCESS(Sleeper);
    bool destroyed = false, woke = false;
    sc_core::sc_event never;
    explicit Sleeper(sc_core::sc_module_name n) : sc_core::sc_module(n) {
        SC_THREAD(timed);
        SC_THREAD(on_event);
        SC_METHOD(method);
    }
    void timed() {
        std::unique_ptr<Flag> f(new Flag{&destroyed});
        wait(1, sc_core::SC_SEC);
        woke = true;
    }
    void on_event() {
        auto f = std::make_shared<int>(7);
        wait(never);
        woke = true;
    }
    void method() {}
};

class UnwindThreads : public SystemCTest {};

TEST_F(UnwindThreads, SuspendedThreadsAreUnwoundAndTimeStays) {
    Sleeper s("s");
    sc_core::sc_start(1, sc_core::SC_MS);
    ASSERT_FALSE(s.destroyed);
    platform::unwind_threads();
    EXPECT_TRUE(s.destroyed) << "the suspended thread's locals were not destroyed";
    EXPECT_FALSE(s.woke);
    EXPECT_EQ(sc_core::sc_time_stamp(), sc_core::sc_time(1, sc_core::SC_MS));
    EXPECT_FALSE(sc_core::sc_pending_activity()) << "the killed threads' wake-ups are gone";
    platform::unwind_threads();  // again: nothing left to do
}

TEST_F(UnwindThreads, BeforeTheSimulationStartedItDoesNothing) {
    Sleeper s("s");
    platform::unwind_threads();
    sc_core::sc_start(1, sc_core::SC_MS);
    EXPECT_FALSE(s.destroyed);
    platform::unwind_threads();
    EXPECT_TRUE(s.destroyed);
}

}  // namespace
}  // namespace neuronsim::test
