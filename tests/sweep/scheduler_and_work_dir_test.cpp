// The shard an array task runs (sweep/scheduler_env.h: Slurm's and Grid Engine's variables)
// and the sweep's work directory (sweep/work_dir.h: kept, or temporary and removed; one a
// killed sweep left behind removed by the next).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "model/common/error.h"
#include "sweep/scheduler_env.h"
#include "sweep/work_dir.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::sweep {
namespace {

// Sets the scheduler variables for one test and clears every one of them after it.
class SchedulerEnv : public ::testing::Test {
protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        for (const char* v : {"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "SGE_TASK_ID", "SGE_TASK_FIRST",
                              "SGE_TASK_LAST", "SGE_TASK_STEPSIZE"})
            unsetenv(v);
    }
    static void set(const std::map<std::string, std::string>& vars) {
        for (const auto& [k, v] : vars) setenv(k.c_str(), v.c_str(), 1);
    }
    static std::string shard(int& index, int& count) {
        std::string scheduler;
        try {
            shard_from_environment(index, count, scheduler);
        } catch (const Error& e) {
            return std::string("error: ") + e.what();
        }
        return scheduler;
    }
};

TEST_F(SchedulerEnv, SlurmArraysWithAMinimumAndAStep) {
    int i = -1, n = -1;
    set({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_COUNT", "5"}});
    EXPECT_EQ(shard(i, n), "Slurm");
    EXPECT_EQ(i, 3);
    EXPECT_EQ(n, 5);
    // --array=10-18:2 -> tasks 10, 12, 14, 16, 18: task 14 is shard 2 of 5
    set({{"SLURM_ARRAY_TASK_ID", "14"}, {"SLURM_ARRAY_TASK_MIN", "10"}, {"SLURM_ARRAY_TASK_STEP", "2"}});
    EXPECT_EQ(shard(i, n), "Slurm");
    EXPECT_EQ(i, 2);
    EXPECT_EQ(n, 5);
    set({{"SLURM_ARRAY_TASK_ID", "15"}});  // between the steps
    EXPECT_NE(shard(i, n).find("Slurm task 15 is not one of 5 tasks from 10 in steps of 2"), std::string::npos) << shard(i, n);
    unsetenv("SLURM_ARRAY_TASK_COUNT");
    EXPECT_NE(shard(i, n).find("SLURM_ARRAY_TASK_COUNT is not"), std::string::npos);
    set({{"SLURM_ARRAY_TASK_ID", "x3"}, {"SLURM_ARRAY_TASK_COUNT", "5"}});
    EXPECT_NE(shard(i, n).find("SLURM_ARRAY_TASK_ID"), std::string::npos) << shard(i, n);
}

TEST_F(SchedulerEnv, GridEngineTasksCountFromFirst) {
    int i = -1, n = -1;
    set({{"SGE_TASK_ID", "4"}, {"SGE_TASK_FIRST", "1"}, {"SGE_TASK_LAST", "7"}, {"SGE_TASK_STEPSIZE", "3"}});  // tasks 1, 4, 7
    EXPECT_EQ(shard(i, n), "Grid Engine");
    EXPECT_EQ(i, 1);
    EXPECT_EQ(n, 3);
    set({{"SGE_TASK_ID", "undefined"}});
    EXPECT_NE(shard(i, n).find("not an array job"), std::string::npos);
}

TEST_F(SchedulerEnv, NoSchedulerNamesWhatWasLookedFor) {
    int i = -1, n = -1;
    const std::string e = shard(i, n);
    EXPECT_NE(e.find("no array task in the environment"), std::string::npos) << e;
    EXPECT_NE(e.find("give --shard I/N instead"), std::string::npos) << e;
}

TEST(WorkDir, KeptOrTemporaryAndRemoved) {
    test::TempDir dir;
    {
        WorkDir keep(dir.file("runs"));
        EXPECT_EQ(keep.path(), dir.file("runs"));
    }
    const std::string old_tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "";
    setenv("TMPDIR", dir.path().c_str(), 1);
    std::string path;
    {
        WorkDir w("");
        path = w.path();
        EXPECT_EQ(path.rfind(dir.path() + "/neuronsim-sweep-", 0), 0u) << path;
        EXPECT_TRUE(std::filesystem::exists(path + "/owner"));
        std::ofstream(path + "/point.txt") << "x";
    }
    EXPECT_FALSE(std::filesystem::exists(path)) << "a temporary work directory outlived its sweep";
    // One a killed sweep left (its owner process gone) is removed by the next; a live one's stays.
    std::filesystem::create_directories(dir.file("neuronsim-sweep-dead"));
    std::ofstream(dir.file("neuronsim-sweep-dead/owner")) << "999999999 12345\n";
    std::filesystem::create_directories(dir.file("neuronsim-sweep-alive"));
    {
        std::ifstream stat("/proc/self/stat");
        std::string s;
        std::getline(stat, s);
        std::istringstream rest(s.substr(s.rfind(')') + 2));
        std::string field;
        for (int k = 3; k <= 22 && rest >> field; ++k) {
        }
        std::ofstream(dir.file("neuronsim-sweep-alive/owner")) << getpid() << " " << field << "\n";
    }
    {
        WorkDir next("");
        EXPECT_FALSE(std::filesystem::exists(dir.file("neuronsim-sweep-dead")));
        EXPECT_TRUE(std::filesystem::exists(dir.file("neuronsim-sweep-alive")));
    }
    if (old_tmp.empty()) unsetenv("TMPDIR");
    else setenv("TMPDIR", old_tmp.c_str(), 1);
}

}  // namespace
}  // namespace neuronsim::sweep
