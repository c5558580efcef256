#pragma once
// Gives each test a fresh SystemC simulation context, so that a test can elaborate and run a
// platform even when another test in the same process already ran one.
#include <gtest/gtest.h>

#include "tests/support/asan.h"  // restore_thread_stack_for_asan

namespace neuronsim::test {

void reset_systemc_context();

class SystemCTest : public ::testing::Test {
protected:
    void SetUp() override { reset_systemc_context(); }
    void TearDown() override { restore_thread_stack_for_asan(); }
};

}  // namespace neuronsim::test
