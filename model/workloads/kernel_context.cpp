#include "model/workloads/kernel_context.h"

#include <filesystem>

#include "model/common/error.h"
#include "model/io/read_file.h"
#include "model/io/write_file.h"

namespace neuronsim::model::workloads {

namespace fs = std::filesystem;

uint64_t Rng::next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float Rng::uniform(float lo, float hi) {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;
    return static_cast<float>(lo + (static_cast<double>(hi) - lo) * u);
}

KernelContext::KernelContext(TraceWriter& w, const GenLimits& g, const std::string& trace_path, uint32_t lanes, uint64_t max_data_bytes)
    : w_(w), g_(g), pipe_(w, g, lanes), max_data_bytes_(max_data_bytes) {
    const fs::path p(trace_path);
    dir_ = p.parent_path().string();
    stem_ = p.stem().string();
}

DramTensor KernelContext::tensor(uint64_t rows, uint64_t row_bytes, uint64_t ring_row_bytes) {
    DramTensor t;
    t.addr = next_dram_;
    t.row_bytes = row_bytes;
    t.rows = rows;
    t.ring_rows = rows;
    const uint64_t widest = std::max(row_bytes, ring_row_bytes);
    if (rows * widest > max_data_bytes_) {
        // Whole tiles only, so no DMA row chunk straddles the ring's end.
        const uint64_t tile_bytes = uint64_t{g_.partitions} * widest;
        t.ring_rows = std::max<uint64_t>(1, max_data_bytes_ / tile_bytes) * g_.partitions;
        if (t.ring_rows < rows) ringed_ = true;
        else t.ring_rows = rows;
    }
    next_dram_ = (next_dram_ + t.stored_bytes() + 4095) & ~uint64_t{4095};
    if (g_.dram_bytes < kDramReserve || next_dram_ > g_.dram_bytes - kDramReserve)
        throw Error("the kernel's tensors need " + io::size_text(next_dram_) + " of DRAM; " + g_.name + " has " + io::size_text(g_.dram_bytes) +
                    " (memory.dram_bytes), of which `neuronsim run` keeps the top " + io::size_text(kDramReserve) +
                    " for instruction queues and function sets (a smaller --max-data-mib stores less)");
    return t;
}

void KernelContext::input(const DramTensor& t, const std::string& name, const std::vector<uint8_t>& bytes) {
    if (bytes.size() != t.stored_bytes())
        throw Error("input " + name + ": " + std::to_string(bytes.size()) + " bytes for a tensor of " + std::to_string(t.stored_bytes()));
    const std::string file = stem_ + "_" + name + ".bin";
    const std::string path = (dir_.empty() ? fs::path(file) : fs::path(dir_) / file).string();
    io::write_file_atomic(path, bytes);
    files_.push_back({path, bytes.size()});
    w_.data_file(dram(t.addr), file);
}

void KernelContext::output(const DramTensor& t, const std::string& name) {
    const std::string file = stem_ + "_" + name + ".bin";
    w_.dump(dram(t.addr), t.stored_bytes(), file);
    dumps_.push_back(file);
}

std::vector<uint8_t> encode_values(const std::vector<float>& v, fp::Dtype d) {
    const size_t n = fp::dtype_bytes(d);
    std::vector<uint8_t> out(v.size() * n);
    for (size_t i = 0; i < v.size(); ++i) fp::from_f32(d, v[i], out.data() + i * n);
    return out;
}

}  // namespace neuronsim::model::workloads
