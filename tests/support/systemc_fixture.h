#pragma once
// Gives each test a fresh SystemC simulation context, so that a test can elaborate and run a
// platform even when another test in the same process already ran one.
#include <gtest/gtest.h>

namespace neuronsim::test {

void reset_systemc_context();
// In an AddressSanitizer build: records the calling thread's own stack as its stack again (see
// systemc_fixture.cpp); elsewhere nothing.
void restore_thread_stack_for_asan();

class SystemCTest : public ::testing::Test {
protected:
    void SetUp() override { reset_systemc_context(); }
    void TearDown() override { restore_thread_stack_for_asan(); }
};

}  // namespace neuronsim::test
