#pragma once
// What a kernel's generator writes with: the tile pipeline, DRAM allocation, the seeded input
// data (written beside the trace as .data files) and the outputs' .dump lines. Shared by the
// kernels of kernels.cpp; not a public interface.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/fp/dtype.h"
#include "model/workloads/gen_limits.h"
#include "model/workloads/tile_pipeline.h"
#include "model/workloads/trace_writer.h"

namespace neuronsim::model::workloads {

// SplitMix64: the same numbers on every platform and compiler (std:: distributions are not).
class Rng {
public:
    explicit Rng(uint64_t seed) : s_(seed) {}
    uint64_t next();
    float uniform(float lo, float hi);  // [lo, hi)

private:
    uint64_t s_;
};

struct WrittenFile {
    std::string path;
    uint64_t bytes = 0;
};

class KernelContext {
public:
    KernelContext(TraceWriter& w, const GenLimits& g, const std::string& trace_path, uint32_t lanes, uint64_t max_data_bytes);

    TilePipeline& pipe() { return pipe_; }
    TraceWriter& writer() { return w_; }
    const GenLimits& limits() const { return g_; }

    // A DRAM tensor of `rows` rows of `row_bytes`; inputs larger than the data budget keep
    // only a ring of whole tiles (DramTensor::ring_rows). `ring_row_bytes`: the widest row of the
    // tensors that will share its ring (an output of wider rows, stored and dumped as a ring of
    // the same rows), which the budget then holds too; 0: row_bytes.
    DramTensor tensor(uint64_t rows, uint64_t row_bytes, uint64_t ring_row_bytes = 0);
    // Writes an input's stored rows (`bytes`, ring_rows x row_bytes) as `<stem>_<name>.bin`
    // and its .data line.
    void input(const DramTensor& t, const std::string& name, const std::vector<uint8_t>& bytes);
    // A .dump of an output's stored rows as `<stem>_<name>.bin` in the run's directory.
    void output(const DramTensor& t, const std::string& name);

    // What the kernel leaves to another engine or cannot do as a compiler would (the trace's
    // head and `neuronsim kernel` print it); once per text.
    void note(const std::string& text) {
        if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
    }
    const std::vector<std::string>& notes() const { return notes_; }

    const std::vector<WrittenFile>& files() const { return files_; }
    const std::vector<std::string>& dumps() const { return dumps_; }
    bool ringed() const { return ringed_; }
    uint64_t max_data_bytes() const { return max_data_bytes_; }
    std::string stem() const { return stem_; }

private:
    TraceWriter& w_;
    GenLimits g_;
    TilePipeline pipe_;
    std::string dir_, stem_;
    uint64_t max_data_bytes_;
    uint64_t next_dram_ = 0;
    bool ringed_ = false;
    std::vector<WrittenFile> files_;
    std::vector<std::string> dumps_;
    std::vector<std::string> notes_;
};

// Element bytes of the data types a kernel takes (fp32, bf16, fp16).
std::vector<uint8_t> encode_values(const std::vector<float>& v, fp::Dtype d);

}  // namespace neuronsim::model::workloads
