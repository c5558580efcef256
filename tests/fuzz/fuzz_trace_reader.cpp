// The text trace reader: the input is a trace file (its .data file= may name the scratch
// directory's d16.bin and d4k.bin). Every record is read or the reader raises Error; every
// instruction read must disassemble and assemble back to the same bundle.
#include <sstream>

#include "model/isa/opcodes.h"
#include "model/trace/trace_reader.h"
#include "tests/fuzz/fuzz_support.h"

using namespace neuronsim;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string dir = [] {
        const std::string d = fuzz::scratch_dir();
        fuzz::write_file(d + "/d16.bin", std::string(16, '\x3f'));
        fuzz::write_file(d + "/d4k.bin", std::string(4096, '\x01'));
        return d;
    }();
    const std::string path = dir + "/t.trace";
    fuzz::write_file(path, std::string(reinterpret_cast<const char*>(data), size));
    fuzz::expect_ok_or_error([&] {
        model::trace::TraceReader r(path);
        while (auto rec = r.next()) {
            if (rec->kind != model::trace::Record::Kind::Instruction) continue;
            const model::isa::Bundle& b = rec->instruction.bundle;
            const std::string text = model::isa::disassemble(rec->instruction.engine, b);
            std::istringstream ss(text);
            std::vector<std::string> w;
            for (std::string x; ss >> x;) w.push_back(x);
            model::isa::Bundle again;
            try {
                again = model::isa::assemble(w.at(0), w.at(1), std::vector<std::string>(w.begin() + 2, w.end()));
            } catch (const Error& e) {
                fuzz::fuzz_fail("trace instruction's disassembly does not assemble: " + text + ": " + e.what());
            }
            if (again.b != b.b) fuzz::fuzz_fail("trace instruction's disassembly assembles to other bytes: " + text);
        }
    });
    return 0;
}
