#pragma once
// Hazards between the engines of a core (docs/hazards.md): a read after a write, a write after
// a read or a write after a write of the same bytes by two instructions of different streams
// that no semaphore orders, and reads of bytes nothing wrote. The ordering is happens-before,
// not this run's timing, so a race that a generation's timing happens to hide is reported too:
//  - an instruction's stream knows what the waits of its own instructions so far acquired;
//  - an update of a semaphore releases, when it retires, what its instruction's stream knew
//    at that instruction plus that instruction and every earlier one of its stream (retiring
//    is in order);
//  - a wait acquires everything released to its semaphore so far (updates of any mode).
// Memory is shadowed per partition as byte intervals, each holding its last writer and the
// last reader of each stream (a later one of a stream orders everything the earlier did);
// an operand counts as the bounding box of its access pattern. Plain C++: the engines tell it
// what they do (platform/core/engine.h).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/isa/region.h"

namespace neuronsim::model::isa {

class HazardDetector {
public:
    // Per stream: how many of its instructions (counted since the detector began, across
    // resets) are known to have completed.
    using Clock = std::vector<uint64_t>;

    struct Access {
        int stream = -1;  // kHost: the host (ordered before everything)
        uint64_t index = 0;  // in the stream since its last reset (what the host's trace lines count)
        uint64_t seq = 0;  // in the stream since the detector began
        uint64_t issue_ps = 0;
        const std::string* mnemonic = nullptr;
        // A transfer an engine triggered and goes on without (ACT's and POOL's copies): its own
        // later instructions are not ordered after it unless a wait says so; its later copies
        // are (one queue, in order).
        bool async = false;
        bool operator==(const Access& o) const { return stream == o.stream && seq == o.seq; }
    };
    enum class Kind { ReadAfterWrite, WriteAfterRead, WriteAfterWrite, UninitialisedRead };
    struct Hazard {
        Kind kind = Kind::ReadAfterWrite;
        Access first;  // the earlier access (unset for an uninitialised read)
        Access second;  // the access that found it
        Region where;  // the bounding box of the bytes both touch (or that nothing wrote)
    };
    static constexpr int kHost = -2;

    // A stream's id, made on first use.
    int stream(const std::string& name);
    const std::string& stream_name(int s) const;

    // An instruction of stream `s` is issuing and its wait on `semaphore` has held.
    void acquire(int s, uint32_t semaphore);
    // What stream `s` knows now (taken as an instruction that updates a semaphore issues).
    const Clock& knowledge(int s) const { return streams_[static_cast<size_t>(s)].clock; }
    // What its update releases when instruction `index` retires: `at_issue` (knowledge() then)
    // with that instruction and every earlier one of the stream completed.
    Clock release(const Clock& at_issue, int s, uint64_t index) const;
    // The update is seen by the engines: the semaphore's clock joins `c`.
    void publish(uint32_t semaphore, const Clock& c);

    // What instruction `index` of `s` reads and writes (issued at `issue_ps`).
    void access(int s, uint64_t index, uint64_t issue_ps, const std::string* mnemonic, const std::vector<Region>& reads, const std::vector<Region>& writes,
                bool async = false);
    // Instruction `index` of `s` was fetched (every instruction, also those that touch no
    // memory: its number may be released by a semaphore update).
    void issued(int s, uint64_t index);
    void completed(int s, uint64_t index, uint64_t end_ps);  // it retired
    // The host wrote these bytes (a load before the run, or a window write during it).
    void host_wrote(const Region& r);
    // The host can write `space` directly (DMI): its never-written bytes are not reported.
    void host_has_direct(MemSpace space) { untracked_[static_cast<int>(space)] = true; }
    // The device's RESET: what every stream issued so far is ordered before what comes next,
    // and the streams count their instructions from 0 again.
    void reset();

    // The first kMaxListed hazards (count() counts them all).
    const std::vector<Hazard>& hazards() const { return hazards_; }
    // When an instruction completed (completed()); false while it has not.
    bool end_of(const Access& a, uint64_t& end_ps) const;
    // Called with each hazard an access() found, once that access has been looked at whole.
    std::function<void(const Hazard&)> on_found;
    uint64_t count(Kind k) const { return counts_[static_cast<int>(k)]; }
    // The intervals shadowing a partition (what the detector's memory grows with).
    size_t cells(MemSpace space, uint32_t partition) const {
        const auto& v = shadows_[static_cast<int>(space)];
        return partition < v.size() ? v[partition].size() : 0;
    }

private:
    struct Cell {
        int64_t end = 0;
        Access writer;  // stream -1: never written
        std::vector<Access> reads;  // the last read of each stream, by stream
        bool same(const Cell& o) const;
    };
    using Shadow = std::map<int64_t, Cell>;  // disjoint [key, end)
    struct Stream {
        std::string name;
        Clock clock;
        uint64_t base = 0, next = 0;  // seq of index 0; indices seen since the reset
        std::vector<uint64_t> ends;  // by seq: when it completed (kNotYet: not)
    };
    static constexpr uint64_t kNotYet = ~uint64_t{0};

    Shadow& shadow(MemSpace space, uint32_t partition);
    Access make(int s, uint64_t index, uint64_t issue_ps, const std::string* mnemonic);
    bool ordered(const Access& earlier, const Access& later) const;  // earlier happens before later
    void touch(const Access& a, bool write, const Region& r);
    void report(Kind k, const Access& first, const Access& second, MemSpace space, uint32_t p, int64_t lo, int64_t hi);
    static void split(Shadow& m, int64_t at);
    static void merge_around(Shadow& m, int64_t lo, int64_t hi);

    std::vector<Stream> streams_;
    Clock floor_;  // what every stream knows since the last reset (a stream made later too)
    static constexpr size_t kMaxListed = 100000;  // hazards listed; the counts go on
    std::vector<Clock> semaphores_;
    std::vector<Shadow> shadows_[3];  // by space, then partition
    bool untracked_[3] = {true, false, false};  // DRAM: the host's, never reported as unwritten
    std::vector<Hazard> hazards_;
    // (kind, space, first stream, first seq, second stream, second seq) -> its hazard, for
    // merging the partitions and intervals of one pair.
    std::map<std::tuple<int, int, int, uint64_t, int, uint64_t>, size_t> by_pair_;
    uint64_t counts_[4] = {0, 0, 0, 0};
};

std::string hazard_kind_name(HazardDetector::Kind k);  // "read after write", ...

}  // namespace neuronsim::model::isa
