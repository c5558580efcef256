#include "platform/record/instruction_record.h"

#include "platform/record/record_text.h"

#include <cctype>

namespace neuronsim::platform {

namespace {

// record::put_semaphore's appends into a std::string, for the text outside the recording.
struct StringOut {
    std::string& s;
    void put(char c) { s += c; }
    template <size_t N>
    void lit(const char (&t)[N]) {
        s.append(t, N - 1);
    }
    void u64(uint64_t v) {
        char b[20];
        s.append(b, model::io::TextWriter::format_u64(b, v));
    }
};

}  // namespace

std::string InstructionRecord::stall_cause() const {
    std::string c;
    StringOut o{c};
    if (sem_wait) record::put_semaphore(o, wait);
    if (busy_resource) {
        c += c.empty() ? "busy " : ", then busy ";
        c += *busy_resource;
    }
    if (dependency && released_by) {
        c += c.empty() ? "data from " : ", then data from ";
        c += *released_by;
    }
    return c;
}

namespace {
// A name in a stats key: letters, digits and '_' only ("dma.0" -> "dma_0").
std::string key_part(const std::string& name) {
    std::string k;
    for (char c : name) k += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return k;
}
}  // namespace

std::string InstructionRecord::stall_cause_key(const std::string* released_by_engine) const {
    std::string c;
    auto then = [&] {
        if (!c.empty()) c += "_then_";
    };
    if (sem_wait) c += "semaphore" + std::to_string(wait.wait_idx) + (wait.wait == model::isa::WaitMode::Eq ? "_eq" : "_ge");
    if (busy_resource) {
        then();
        c += "busy_" + key_part(*busy_resource);
    }
    if (dependency && released_by) {
        then();
        c += "data_from_" + key_part(*released_by);
    }
    if (released_by_engine) c += "_released_by_" + key_part(*released_by_engine);
    return c;
}

std::string InstructionRecord::source() const { return source_file && line ? *source_file + ":" + std::to_string(line) : ""; }

}  // namespace neuronsim::platform
