// The memories as TLM-2.0 targets: b_transport, transport_dbg, DMI, address errors.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "model/common/error.h"
#include "platform/tlm/memory.h"
#include "platform/tlm/whole_write.h"
#include "platform/tlm/zeroed_pages.h"
#include "tests/support/systemc_fixture.h"

namespace neuronsim::test {
namespace {

struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket;
    explicit Initiator(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket") {}
    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len, bool dbg = false) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(data);
        t.set_data_length(len);
        t.set_streaming_width(len);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        if (dbg) {
            socket->transport_dbg(t);
        } else {
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            socket->b_transport(t, d);
        }
        return t.get_response_status();
    }
};

class MemoryTest : public SystemCTest {};

TEST_F(MemoryTest, SparseDramThroughTheSocket) {
    Initiator ini("ini");
    platform::Memory dram("dram", uint64_t{1} << 40);
    ini.socket.bind(dram.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // the target's multi-socket completes its binding at elaboration
    uint8_t w[4] = {1, 2, 3, 4}, r[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    const uint64_t far = (uint64_t{1} << 39) + 65534;  // straddles two 64 KiB pages
    EXPECT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, far, w, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, far - 2, r, 8, true), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(std::vector<uint8_t>(r, r + 8), (std::vector<uint8_t>{0, 0, 1, 2, 3, 4, 0, 0}));
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, (uint64_t{1} << 40) - 2, r, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    tlm::tlm_generic_payload t;
    t.set_address(far);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.socket->get_direct_mem_ptr(t, dmi));
    EXPECT_EQ(dmi.get_dmi_ptr()[far - dmi.get_start_address()], 1);
    EXPECT_EQ(dmi.get_end_address() - dmi.get_start_address(), 65535u);
}

TEST_F(MemoryTest, DensePartitionsAndDirectAccess) {
    Initiator ini("ini");
    platform::Memory sbuf("sbuf", 128 * 1024, 128);
    ini.socket.bind(sbuf.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    EXPECT_EQ(sbuf.bytes_per_partition(), 1024u);
    uint8_t v = 7;
    sbuf.write(5 * 1024 + 3, &v, 1);
    uint8_t r = 0;
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, 5 * 1024 + 3, &r, 1), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(r, 7);
    tlm::tlm_generic_payload t;
    tlm::tlm_dmi dmi;
    t.set_address(0);
    ASSERT_TRUE(ini.socket->get_direct_mem_ptr(t, dmi));
    EXPECT_EQ(dmi.get_end_address(), 128u * 1024 - 1);
    EXPECT_EQ(dmi.get_dmi_ptr()[5 * 1024 + 3], 7);
    EXPECT_THROW(sbuf.write(128 * 1024 - 1, &v, 2), Error);
}

// map_shared: the bytes read as given without a copy, and the region's owner sees no write:
// a write (or a DMI grant, which may write) copies the page first; edge pages shared with other
// bytes are copied at once; pages touched count as if the region were written.
TEST_F(MemoryTest, SharedPagesAreCopiedOnWrite) {
    Initiator ini("ini");
    platform::Memory dram("dram", uint64_t{1} << 32);
    ini.socket.bind(dram.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    constexpr uint64_t kPage = 65536, base = 3 * kPage - 16;  // a partial page, two whole ones, a partial one
    auto region = std::make_shared<std::vector<uint8_t>>(2 * kPage + 32);
    for (size_t i = 0; i < region->size(); ++i) (*region)[i] = static_cast<uint8_t>(i * 7 + 1);
    const std::vector<uint8_t> original = *region;
    uint8_t before = 0x5a;
    dram.write(base - 1, &before, 1);  // the first page holds other bytes too
    dram.map_shared(base, region->data(), region->size(), region);
    std::vector<uint8_t> r(region->size() + 2);
    dram.read(base - 1, r.data(), r.size());
    EXPECT_EQ(r.front(), 0x5a);
    EXPECT_EQ(std::vector<uint8_t>(r.begin() + 1, r.end() - 1), original);
    EXPECT_EQ(r.back(), 0);
    nlohmann::ordered_json st;
    dram.collect_stats(st);
    EXPECT_EQ(st["pages_touched"], 4);

    uint8_t w[2] = {0xee, 0xff};  // into the first whole (shared) page
    EXPECT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 3 * kPage + 100, w, 2), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(*region, original) << "a write reached the shared bytes";
    dram.read(base, r.data(), region->size());
    std::vector<uint8_t> expect = original;
    expect[16 + 100] = 0xee, expect[16 + 101] = 0xff;
    EXPECT_EQ(std::vector<uint8_t>(r.begin(), r.begin() + region->size()), expect);

    tlm::tlm_generic_payload t;  // DMI into the second whole page: a private copy is granted
    t.set_address(4 * kPage + 8);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.socket->get_direct_mem_ptr(t, dmi));
    EXPECT_EQ(dmi.get_start_address(), 4 * kPage);
    EXPECT_NE(dmi.get_dmi_ptr(), region->data() + (4 * kPage - base));
    EXPECT_EQ(dmi.get_dmi_ptr()[8], original[4 * kPage + 8 - base]);
    dmi.get_dmi_ptr()[8] ^= 0xff;
    EXPECT_EQ(*region, original);
    dram.collect_stats(st);
    EXPECT_EQ(st["pages_touched"], 4);
}

// A shared page counts against the resident limit as a written one does.
TEST_F(MemoryTest, SharedPagesCountAgainstTheResidentLimit) {
    platform::Memory dram("dram", uint64_t{1} << 32);
    dram.set_resident_limit(2 * 65536, "the test's limit");
    auto region = std::make_shared<std::vector<uint8_t>>(3 * 65536, 1);
    try {
        dram.map_shared(0, region->data(), region->size(), region);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("the test's limit"), std::string::npos) << e.what();
    }
}

// DRAM pages come from zeroed slabs: a page first written in part reads zero around the write;
// a page released (a written page mapped over by a shared region) is handed out again and is
// zero again when the next partial write takes it, not the bytes it held.
TEST_F(MemoryTest, NewAndReusedPagesReadZeroAroundAPartialWrite) {
    constexpr uint64_t kPage = 65536;
    platform::Memory dram("dram", uint64_t{1} << 32);
    std::vector<uint8_t> full(kPage, 0xab);
    dram.write(7 * kPage, full.data(), kPage);  // a whole page: taken without zeroing
    auto region = std::make_shared<std::vector<uint8_t>>(kPage, 0x11);
    dram.map_shared(7 * kPage, region->data(), kPage, region);  // the 0xab page goes back to the pool
    const uint8_t b = 0x77;
    dram.write(40 * kPage + 1000, &b, 1);  // a new page, written in part: the released one, zeroed
    std::vector<uint8_t> r(kPage);
    dram.read(40 * kPage, r.data(), kPage);
    std::vector<uint8_t> expect(kPage, 0);
    expect[1000] = 0x77;
    EXPECT_EQ(r, expect);
    dram.read(7 * kPage, r.data(), kPage);
    EXPECT_EQ(r, *region);
    for (uint64_t i = 0; i < 40; ++i) dram.write(100 * kPage + i * kPage + 5, &b, 1);  // past one slab
    dram.read(139 * kPage, r.data(), kPage);
    expect[1000] = 0, expect[5] = 0x77;
    EXPECT_EQ(r, expect);
}

// write_in_place / read_in_place: the caller fills and reads the memory's own bytes a page at
// a time, in address order; a partly filled page keeps zeros around the piece, a page never
// written reads as zeros, and the bytes are those read() and write() give.
TEST_F(MemoryTest, InPlaceAccessGoesPageByPageInOrder) {
    constexpr uint64_t kPage = 65536;
    platform::Memory dram("dram", uint64_t{1} << 32);
    const uint64_t at = 3 * kPage - 100, len = 2 * kPage + 300;  // the end of one page, two whole, the start of another
    std::vector<uint8_t> src(len);
    for (size_t i = 0; i < len; ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
    std::vector<size_t> pieces;
    size_t done = 0;
    dram.write_in_place(at, len, [&](uint8_t* dst, size_t n) {
        std::memcpy(dst, src.data() + done, n);
        done += n;
        pieces.push_back(n);
    });
    EXPECT_EQ(pieces, (std::vector<size_t>{100, kPage, kPage, 200}));
    std::vector<uint8_t> back(len + 200);
    dram.read(at - 100, back.data(), back.size());
    EXPECT_EQ(std::vector<uint8_t>(back.begin(), back.begin() + 100), std::vector<uint8_t>(100, 0));  // zeros before, in the same page
    EXPECT_EQ(std::vector<uint8_t>(back.begin() + 100, back.begin() + 100 + len), src);
    EXPECT_EQ(std::vector<uint8_t>(back.begin() + 100 + len, back.end()), std::vector<uint8_t>(100, 0));
    std::vector<uint8_t> seen;
    dram.read_in_place(at - 100, len + 200 + 3 * kPage, [&](const uint8_t* p, size_t n) { seen.insert(seen.end(), p, p + n); });  // and pages never written
    ASSERT_EQ(seen.size(), len + 200 + 3 * kPage);
    EXPECT_EQ(std::vector<uint8_t>(seen.begin(), seen.begin() + back.size()), back);
    EXPECT_EQ(std::count(seen.begin() + back.size(), seen.end(), 0), static_cast<long>(3 * kPage));
    // Dense memories: one piece.
    platform::Memory sbuf("sbuf", 4 * kPage, 4);
    size_t calls = 0;
    sbuf.write_in_place(10, 3 * kPage, [&](uint8_t* dst, size_t n) {
        ++calls;
        EXPECT_EQ(n, 3 * kPage);
        std::memset(dst, 0x5a, n);
    });
    uint8_t b[2];
    sbuf.read(9, b, 2);
    EXPECT_EQ(calls, 1u);
    EXPECT_EQ(b[0], 0);
    EXPECT_EQ(b[1], 0x5a);
    EXPECT_THROW(dram.write_in_place((uint64_t{1} << 32) - 10, 20, [](uint8_t*, size_t) {}), Error);
}

TEST(ZeroedPagePool, PagesAreDistinctZeroedAndReused) {
    platform::ZeroedPagePool pool(65536);
    std::vector<uint8_t*> got;
    for (int i = 0; i < 70; ++i) {  // over two 2 MiB slabs
        uint8_t* p = pool.take(true);
        for (uint8_t* q : got) ASSERT_TRUE(p + 65536 <= q || q + 65536 <= p) << "page " << i << " overlaps another";
        ASSERT_EQ(std::count(p, p + 65536, 0), 65536) << "page " << i << " is not zero";
        std::memset(p, 0xcd, 65536);
        got.push_back(p);
    }
    pool.give_back(got[3]);
    uint8_t* again = pool.take(true);
    EXPECT_EQ(again, got[3]);
    EXPECT_EQ(std::count(again, again + 65536, 0), 65536);
}

// The process's memory cache emptied and back at its default limit.
void empty_memory_cache() {
    platform::set_memory_cache_limit(0);
    platform::set_memory_cache_limit(platform::kDefaultMemoryCacheBytes);
}

// A DMI request to write that promises (WholeWrite) to write all of a new DRAM page before
// reading it gets the page without its zeroing: a DMA's destination is not cleared only to be
// overwritten. Only then: a promise one byte short of the page, one from inside the page, a
// read, no promise, one reaching past the memory's end or with more pages than the resident
// limit leaves room for (a copy refused half way would not keep it) all get a zero page. Every
// page here comes from a slab whose every byte the last memory wrote.
TEST_F(MemoryTest, APageTheInitiatorWritesWholeIsNotZeroedFirst) {
    empty_memory_cache();
    constexpr uint64_t kPage = 65536;
    const uint8_t* slab = nullptr;
    {
        platform::Memory dirty("dirty", uint64_t{1} << 32);
        const std::vector<uint8_t> full(kPage, 0xab);
        for (uint64_t i = 0; i < 32; ++i) dirty.write(i * kPage, full.data(), kPage);  // one whole slab
        dirty.read_in_place(0, 1, [&](const uint8_t* p, size_t) { slab = p; });
    }
    Initiator ini("ini");
    platform::Memory dram("dram", 64 * kPage);
    dram.set_resident_limit(40 * kPage, "the test's limit");
    ini.socket.bind(dram.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    auto grant = [&](tlm::tlm_command cmd, uint64_t addr, bool promise, uint64_t bytes = 0) -> const uint8_t* {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        platform::WholeWrite w(bytes);
        if (promise) t.set_extension(&w);
        tlm::tlm_dmi dmi;
        const bool ok = ini.socket->get_direct_mem_ptr(t, dmi);
        if (promise) t.clear_extension(&w);
        EXPECT_TRUE(ok);
        EXPECT_EQ(dmi.get_start_address(), addr / kPage * kPage);
        return dmi.get_dmi_ptr();
    };
    auto zeros = [](const uint8_t* p) { return static_cast<uint64_t>(std::count(p, p + kPage, 0)); };
    const uint8_t* whole = grant(tlm::TLM_WRITE_COMMAND, 0, true, 4 * kPage);
    ASSERT_EQ(whole, slab) << "the first page is not the cached slab's";
    // Not zeroed: the slab's bytes are still there. (Looked at only while resident: under memory
    // pressure the kernel may take a kept page back, which then reads zero; a page the memory
    // zeroed is resident.)
    auto not_zeroed = [&](const uint8_t* p) {
        unsigned char resident = 0;
        EXPECT_EQ(::mincore(const_cast<uint8_t*>(p), 4096, &resident), 0);
        return !(resident & 1) || zeros(p) == 0;
    };
    EXPECT_TRUE(not_zeroed(whole));
    EXPECT_EQ(zeros(grant(tlm::TLM_WRITE_COMMAND, kPage, true, kPage - 1)), kPage);
    EXPECT_EQ(zeros(grant(tlm::TLM_WRITE_COMMAND, 2 * kPage + 8, true, 4 * kPage)), kPage);
    EXPECT_EQ(zeros(grant(tlm::TLM_READ_COMMAND, 3 * kPage, true, 4 * kPage)), kPage);
    EXPECT_EQ(zeros(grant(tlm::TLM_WRITE_COMMAND, 4 * kPage, false)), kPage);
    EXPECT_EQ(zeros(grant(tlm::TLM_WRITE_COMMAND, 62 * kPage, true, 2 * kPage + 1)), kPage);  // (one byte past the end)
    // The resident limit of 40 pages: with 6 held a promise of 35 more passes it, with 7 held
    // one of 33 pages and a byte (34 pages) does too, with 8 held one of 32 fits.
    EXPECT_EQ(zeros(grant(tlm::TLM_WRITE_COMMAND, 10 * kPage, true, 35 * kPage)), kPage);
    EXPECT_EQ(zeros(grant(tlm::TLM_WRITE_COMMAND, 11 * kPage, true, 33 * kPage + 1)), kPage);
    EXPECT_TRUE(not_zeroed(grant(tlm::TLM_WRITE_COMMAND, 12 * kPage, true, 32 * kPage)));
}

// A pool's slabs outlive it in the process's memory cache; the next pool's pages come from them,
// zeroed when asked although the slabs were written; a forked child keeps none of them.
TEST(ZeroedPagePool, SlabsAreKeptForTheNextPoolAndZeroedWhenAsked) {
    empty_memory_cache();  // (earlier pools' slabs go)
    const size_t before = platform::memory_cache_bytes();
    ASSERT_EQ(before, 0u);
    std::set<uint8_t*> first;
    {
        platform::ZeroedPagePool pool(65536);
        for (int i = 0; i < 64; ++i) {  // two 2 MiB slabs, every byte written
            uint8_t* p = pool.take(false);
            std::memset(p, 0xab, 65536);
            first.insert(p);
        }
    }
    EXPECT_EQ(platform::memory_cache_bytes(), before + (size_t{4} << 20));
    {
        platform::ZeroedPagePool pool(65536);
        size_t reused = 0;
        for (int i = 0; i < 64; ++i) {
            uint8_t* p = pool.take(true);
            reused += first.count(p);
            ASSERT_EQ(std::count(p, p + 65536, 0), 65536) << "page " << i << " is not zero";
        }
        EXPECT_GE(reused, 32u);  // at least the slab taken last from the cache
        uint8_t* p = pool.take(false);  // unspecified content, but a page of its own
        p[0] = 1, p[65535] = 2;
    }
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(platform::memory_cache_bytes() == 0 ? 0 : 1);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the forked child still holds cached slabs";
    EXPECT_GT(platform::memory_cache_bytes(), 0u);  // (the parent's are its own)
    platform::set_memory_cache_limit(0);
    EXPECT_EQ(platform::memory_cache_bytes(), 0u);
    platform::set_memory_cache_limit(platform::kDefaultMemoryCacheBytes);
}

// SBUF's and PSUM's mappings outlive their memory in the process's cache: the next mapping of
// the same size is the kept one, every byte zero again although the last owner wrote them, and
// the pages the last owner never touched are not faulted in by the zeroing.
TEST(ReusedZeroed, TheNextMappingOfTheSizeIsTheKeptOneZeroedAndUntouchedPagesStayOut) {
    empty_memory_cache();
    const size_t n = (size_t{8} << 20) + 12345, slab = size_t{2} << 20;
    uint8_t* first = nullptr;
    {
        platform::ZeroedBytes m = platform::reused_zeroed(n, "test");
        first = m.get();
        ASSERT_NE(first, nullptr);
        std::memset(first, 0xab, slab);  // the first slab, all of it
        first[slab + 4096 + 7] = 1;  // a byte of the second
        first[n - 1] = 2;  // the last
    }
    EXPECT_EQ(platform::memory_cache_bytes(), n);
    {
        platform::ZeroedBytes other = platform::reused_zeroed(n - 1, "test");  // another size: fresh
        EXPECT_NE(other.get(), first);
    }
    platform::ZeroedBytes m = platform::reused_zeroed(n, "test");
    ASSERT_EQ(m.get(), first);
    // Pages in the middle slabs (bytes 4 MiB..6 MiB) were never touched: still not resident
    // (looked at before the count below reads them).
    std::vector<unsigned char> in(slab / 4096);
    ASSERT_EQ(::mincore(m.get() + 2 * slab, slab, in.data()), 0);
    EXPECT_EQ(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; }), 0) << "zeroing faulted in pages nobody had touched";
    EXPECT_EQ(std::count(m.get(), m.get() + n, 0), static_cast<std::ptrdiff_t>(n)) << "a kept mapping is handed out with old bytes";
    m.reset();
    platform::set_memory_cache_limit(0);
    EXPECT_EQ(platform::memory_cache_bytes(), 0u);
    platform::set_memory_cache_limit(platform::kDefaultMemoryCacheBytes);
}

// A dense memory made after another of its size (the next run's SBUF) is the last one's
// mapping, and reads zero everywhere.
TEST_F(MemoryTest, ANewSbufIsTheLastOnesMappingAndReadsZero) {
    empty_memory_cache();
    const uint64_t bytes = 128 * 32768;
    std::vector<uint8_t> ones(bytes, 0xff), back(bytes, 1);
    {
        platform::Memory sbuf("sbuf_a", bytes, 128);
        sbuf.write(0, ones.data(), bytes);
    }
    EXPECT_EQ(platform::memory_cache_bytes(), bytes);
    platform::Memory sbuf("sbuf_b", bytes, 128);
    EXPECT_EQ(platform::memory_cache_bytes(), 0u) << "the new SBUF did not take the kept mapping";
    sbuf.read(0, back.data(), bytes);
    EXPECT_EQ(std::count(back.begin(), back.end(), 0), static_cast<std::ptrdiff_t>(bytes));
}

// At the limit the oldest kept mappings go first: a loop over configurations does not leave the
// cache full of sizes nobody asks for.
TEST(ReusedZeroed, AtTheLimitTheOldestGoFirst) {
    platform::set_memory_cache_limit(0);
    const size_t mib = size_t{1} << 20;
    platform::set_memory_cache_limit(6 * mib);
    { platform::ZeroedBytes a = platform::reused_zeroed(4 * mib, "test"); }
    EXPECT_EQ(platform::memory_cache_bytes(), 4 * mib);
    { platform::ZeroedBytes b = platform::reused_zeroed(3 * mib, "test"); }  // a goes to make room
    EXPECT_EQ(platform::memory_cache_bytes(), 3 * mib);
    { platform::ZeroedBytes c = platform::reused_zeroed(7 * mib, "test"); }  // past the limit on its own: not kept
    EXPECT_EQ(platform::memory_cache_bytes(), 0u);
    platform::set_memory_cache_limit(platform::kDefaultMemoryCacheBytes);
}

TEST(MapZeroed, ZeroBytesIsNullAndLargeMapsAreZero) {
    EXPECT_EQ(platform::map_zeroed(0, "test").get(), nullptr);
    const size_t n = (size_t{5} << 20) + 12345;
    platform::ZeroedBytes m = platform::map_zeroed(n, "test");
    ASSERT_NE(m.get(), nullptr);
    EXPECT_EQ(std::count(m.get(), m.get() + n, 0), static_cast<std::ptrdiff_t>(n));
    m.get()[n - 1] = 1;  // the last byte is mapped
    // ... and the page after the last one is not: the slab-aligning trim left no tail behind.
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    unsigned char in = 0;
    EXPECT_NE(::mincore(m.get() + (n + page - 1) / page * page, page, &in), 0) << "the mapping's tail past its last page is still mapped";
}

}  // namespace
}  // namespace neuronsim::test
