#include "platform/record/instruction_record.h"

#include "platform/record/record_text.h"

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

std::string InstructionRecord::source() const { return source_file && line ? *source_file + ":" + std::to_string(line) : ""; }

}  // namespace neuronsim::platform
