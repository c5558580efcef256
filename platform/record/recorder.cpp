#include "platform/record/recorder.h"

#include "model/common/error.h"
#include "platform/record/instruction_csv.h"
#include "platform/record/timeline_writer.h"

namespace neuronsim::platform {

Recorder::Recorder(const DeviceOptions& options, const std::string& process_name)
    : opt_(options), total_(options.progress_total), progress_(options.progress_total, "instructions", options.progress, 0.2) {
    // Each file is renamed into place when complete (finish()), else never appears.
    const std::string& out_dir = opt_.record_dir;
    if (!out_dir.empty() && opt_.record_csv) csv_ = std::make_unique<record::InstructionCsv>(out_dir + "/instructions.csv", opt_.cost_model);
    if (!out_dir.empty() && opt_.record_timeline) timeline_ = std::make_unique<record::TimelineWriter>(out_dir + "/timeline.json", process_name);
}

Recorder::~Recorder() = default;  // not finished (the run failed): the partial files never appear

bool Recorder::in_window(const sc_core::sc_time& start, const sc_core::sc_time& end) const { return end >= opt_.window_start && start <= opt_.window_end; }

void Recorder::set_source_lines(const std::string* engine, const std::string& lines_path) {
    sources_[engine] = std::make_unique<model::trace::SourceLines>(lines_path, true);
}

void Recorder::skip(const std::string* engine) {
    auto it = sources_.find(engine);
    if (it != sources_.end()) it->second->next();
}

void Recorder::instruction(InstructionRecord& r) {
    if (!r.source_file) {
        auto it = sources_.find(r.engine);
        if (it != sources_.end()) {
            r.line = it->second->next();
            r.source_file = &it->second->source();
        }
    }
    if (in_window(r.ready, r.end)) {
        if (csv_) csv_->row(r);
        if (timeline_) timeline_->instruction(r);
    }
    if (opt_.cost_model) divergences_.add(r);
    ++completed_;
    progress_.update(completed_, "", completed_ == total_);
}

void Recorder::slice(const std::string& track, const std::string& name, const sc_core::sc_time& start, const sc_core::sc_time& end, const std::string& args) {
    if (timeline_ && in_window(start, end)) timeline_->slice(track, name, start, end, args);
}

void Recorder::counter(const std::string& name, const sc_core::sc_time& at, double value) {
    if (timeline_ && at >= opt_.window_start && at <= opt_.window_end) timeline_->counter(name, at, value);
}

void Recorder::finish() {
    // Complete files are moved into place; a failed one never appears: never half a file.
    std::string failed;
    auto commit = [&](auto& f) {
        if (!f) return;
        try {
            f->commit();
        } catch (const std::exception& e) {
            failed += failed.empty() ? e.what() : std::string("; ") + e.what();
        }
        f.reset();
    };
    commit(csv_);
    commit(timeline_);
    progress_.finish(false);
    if (!failed.empty()) throw Error(failed + " (disk full or file size limit?): the recording is incomplete");
}

}  // namespace neuronsim::platform
