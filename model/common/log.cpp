#include "model/common/log.h"

#include <mutex>

namespace neuronsim::model {

namespace {
std::mutex& sink_mutex() {
    static std::mutex m;
    return m;
}
LogSink& current_sink() {
    static LogSink s;
    return s;
}
}  // namespace

void set_log_sink(LogSink sink) {
    std::lock_guard<std::mutex> lock(sink_mutex());
    current_sink() = std::move(sink);
}

bool set_log_sink_if_unset(LogSink sink) {
    std::lock_guard<std::mutex> lock(sink_mutex());
    if (current_sink()) return false;
    current_sink() = std::move(sink);
    return true;
}

// Under the lock: worker threads may log, and neither spdlog's default logger nor SystemC's
// report handler is ours to assume thread-safe.
void log(LogLevel level, const char* topic, const std::string& message) {
    std::lock_guard<std::mutex> lock(sink_mutex());
    if (current_sink()) current_sink()(level, topic, message);
}

}  // namespace neuronsim::model
