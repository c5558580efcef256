// What first touching the simulated memories costs on this host (bench/README section 13): the
// memory comes from platform::map_zeroed, as DRAM's slabs and SBUF/PSUM do, is touched once a
// 4 KiB page (the kernel zeroes it then) and then overwritten with memset (memory that is
// already there). A whole run's fixed part is mostly such touching and copying, so a virtual
// machine whose host takes freed memory back makes every run pay the first figure again.
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "model/common/error.h"
#include "platform/tlm/zeroed_pages.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }

bool parse_number(const char* s, unsigned long& out) {
    char* end = nullptr;
    errno = 0;
    out = std::strtoul(s, &end, 10);
    return s[0] && *end == '\0' && errno == 0;
}

int usage(const char* argv0, int rc) {
    std::fprintf(rc ? stderr : stdout,
                 "usage: %s [--mib N] [--runs N] [--pause-ms N] [--small-pages]\n"
                 "Maps N MiB (default 128) as the simulator maps its memories (platform::map_zeroed: 2 MiB\n"
                 "aligned, advised as transparent huge pages), times the first touch of every 4 KiB page and\n"
                 "then a memset of the same memory, unmaps it, and repeats (default 6 times), waiting\n"
                 "--pause-ms between repetitions (default 0). --small-pages advises 4 KiB pages instead.\n",
                 argv0);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    unsigned long mib = 128, runs = 6, pause_ms = 0;
    bool small_pages = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        unsigned long* target = a == "--mib" ? &mib : a == "--runs" ? &runs : a == "--pause-ms" ? &pause_ms : nullptr;
        if (a == "--help" || a == "-h") return usage(argv[0], 0);
        if (a == "--small-pages") {
            small_pages = true;
        } else if (target) {
            if (i + 1 >= argc || !parse_number(argv[i + 1], *target) || (target != &pause_ms && *target == 0)) {
                std::fprintf(stderr, "%s: %s takes a whole number%s\n", argv[0], a.c_str(), target != &pause_ms ? " of at least 1" : "");
                return 2;
            }
            ++i;
        } else {
            std::fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], a.c_str());
            return usage(argv[0], 2);
        }
    }
    if (mib > (size_t{1} << 20)) {  // (1 TiB; and size_t{mib} << 20 cannot wrap)
        std::fprintf(stderr, "%s: --mib %lu is over 1048576 (1 TiB)\n", argv[0], mib);
        return 2;
    }
    const size_t bytes = size_t{mib} << 20;
    std::printf("%lu MiB, %s pages, %lu ms between repetitions\n", mib, small_pages ? "4 KiB" : "2 MiB (advised)", pause_ms);
    try {
        for (unsigned long r = 0; r < runs; ++r) {
            if (r && pause_ms) std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms));
            auto t0 = std::chrono::steady_clock::now();
            neuronsim::platform::ZeroedBytes m = neuronsim::platform::map_zeroed(bytes, "first_touch_bench");
            if (small_pages) (void)::madvise(m.get(), bytes, MADV_NOHUGEPAGE);
            volatile uint8_t* p = m.get();
            for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
            const double touch = seconds_since(t0);
            t0 = std::chrono::steady_clock::now();
            std::memset(m.get(), 2, bytes);
            const double set = seconds_since(t0);
            std::printf("first touch %8.1f ms (%6.2f GB/s)   memset after it %6.1f ms (%6.2f GB/s)\n", touch * 1e3, bytes / touch / 1e9, set * 1e3,
                        bytes / set / 1e9);
        }
    } catch (const neuronsim::Error& e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 1;
    }
    return 0;
}
