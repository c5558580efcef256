#include "tests/support/platform_run.h"

#include <cstring>

#include "model/common/error.h"
#include "model/fp/dtype.h"
#include "model/trace/assembler.h"
#include "platform/config.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {

platform::RunReport PlatformRunTest::run_file(const std::string& trace_path) {
    model::trace::assemble_trace(trace_path, t.file("streams"));
    platform::RunOptions o;
    o.out_dir = t.file("out");
    o.device.act_exact = exact;
    o.device.timing_only = timing_only;
    o.device.act_reference_kernel = reference_kernel;
    o.device.dve_reference_kernel = reference_kernel;
    o.device.cancel = stop;
    o.device.dma_copies = dma_copies;
    platform::Config cfg = platform::parse_config(platform::builtin_config_text(gen), gen, overrides);
    platform::TraceHost host("host", cfg, model::trace::list_streams(t.file("streams")), t.file("streams/setup.trace"), o);
    return host.run();
}

platform::RunReport PlatformRunTest::run(const std::string& trace_text) { return run_file(t.write("x.trace", trace_text)); }

std::string PlatformRunTest::error_of(const std::string& trace_text) {
    try {
        run(trace_text);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string PlatformRunTest::out(const std::string& file) { return read_file(t.file("out/" + file)); }

double PlatformRunTest::csv_field(const std::string& engine, int index, int field) {
    const std::string csv = out("instructions.csv");
    const std::string key = "\n" + engine + "," + std::to_string(index) + ",";
    const size_t at = csv.find(key);
    if (at == std::string::npos) throw Error("instructions.csv has no row " + engine + "," + std::to_string(index));
    size_t p = at + 1;
    for (int i = 0; i < field; ++i) p = csv.find(',', p) + 1;
    return std::stod(csv.substr(p));
}

std::vector<float> floats(const std::string& bytes) {
    std::vector<float> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
    return v;
}

std::string f32_bytes(const std::vector<float>& v) {
    std::string s(v.size() * 4, '\0');
    std::memcpy(s.data(), v.data(), s.size());
    return s;
}

std::string bf16_bytes(const std::vector<float>& v) {
    std::string s(v.size() * 2, '\0');
    for (size_t i = 0; i < v.size(); ++i) {
        const uint16_t h = model::fp::f32_to_bf16(v[i]);
        std::memcpy(s.data() + 2 * i, &h, 2);
    }
    return s;
}

std::string chained(const std::vector<std::string>& instrs) {
    std::string out;
    for (size_t k = 0; k < instrs.size(); ++k) {
        std::string line = instrs[k];
        line.pop_back();  // '\n'
        if (k) line += " wait=0>=" + std::to_string(k);
        out += line + " update=0+1\n";
    }
    return out;
}

std::vector<uint16_t> halves(const std::string& bytes) {
    std::vector<uint16_t> v(bytes.size() / 2);
    std::memcpy(v.data(), bytes.data(), v.size() * 2);
    return v;
}

}  // namespace neuronsim::test
