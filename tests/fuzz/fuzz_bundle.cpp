// Bundle decode / disassemble / assemble round trip. The first 64 bytes are a bundle: on every
// engine class its text must assemble back to the same 64 bytes. The rest, if any, is one
// line of trace text: when it assembles, its disassembly must assemble to the same bundle.
#include <sstream>

#include "model/isa/bundle.h"
#include "model/isa/opcodes.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace neuronsim;
using namespace neuronsim::model::isa;

std::vector<std::string> words(const std::string& s) {
    std::istringstream ss(s);
    std::vector<std::string> w;
    for (std::string x; ss >> x;) w.push_back(x);
    return w;
}

void round_trip(const std::string& engine, const Bundle& b) {
    const std::string text = disassemble(engine, b);
    const std::vector<std::string> w = words(text);
    if (w.size() < 2) fuzz::fuzz_fail("disassembly has no mnemonic: " + text);
    Bundle again;
    try {
        again = assemble(w[0], w[1], std::vector<std::string>(w.begin() + 2, w.end()));
    } catch (const Error& e) {
        fuzz::fuzz_fail("disassembly does not assemble: " + text + ": " + e.what());
    }
    if (again.b != b.b) fuzz::fuzz_fail("disassembly assembles to other bytes: " + text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size >= kBundleBytes) {
        Bundle b;
        std::copy(data, data + kBundleBytes, b.b.begin());
        check_header_and_events(b);
        read_events(b);
        for (const char* engine : {"act", "pool", "dma0", "dma3.7"}) round_trip(engine, b);
        data += kBundleBytes;
        size -= kBundleBytes;
    }
    const std::vector<std::string> w = words(std::string(reinterpret_cast<const char*>(data), size));
    if (w.size() >= 2) {
        Bundle b;
        if (fuzz::expect_ok_or_error([&] { b = assemble(w[0], w[1], std::vector<std::string>(w.begin() + 2, w.end())); })) round_trip(w[0], b);
    }
    return 0;
}
