// _core: neuronsim's library inside a Python process. It prints nothing: library messages are
// queued here and the Python half turns them into warnings and logging records; errors become
// neuronsim.Error (a ValueError) carrying the library's message, which names the place.
#include <cstdlib>
#include <deque>
#include <mutex>

#include "model/common/error.h"
#include "model/common/log.h"
#include "neuronsim/version.h"
#include "python/src/bindings.h"

// libsystemc.so refers to sc_main from its own main(), which never runs inside Python; the
// symbol must still resolve when Python loads the module with RTLD_NOW.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) { return 1; }

namespace py = pybind11;

namespace {

struct Message {
    std::string level, topic, text;
};
std::mutex g_messages_mutex;
std::deque<Message> g_messages;
// A run that warns for every instruction cannot fill the host's memory: past this the oldest
// messages go, and the count of those dropped is reported as a message of its own.
constexpr size_t kMaxMessages = 10000;
size_t g_dropped = 0;

void queue_message(neuronsim::model::LogLevel level, const char* topic, const std::string& text) {
    const char* l = level == neuronsim::model::LogLevel::Warning ? "warning" : level == neuronsim::model::LogLevel::Info ? "info" : "debug";
    std::lock_guard<std::mutex> lock(g_messages_mutex);
    if (g_messages.size() == kMaxMessages) {
        g_messages.pop_front();
        ++g_dropped;
    }
    g_messages.push_back({l, topic, text});
}

py::list take_messages() {
    std::lock_guard<std::mutex> lock(g_messages_mutex);
    py::list out;
    if (g_dropped) out.append(py::make_tuple("warning", "python", std::to_string(g_dropped) + " earlier message(s) were dropped (queue full)"));
    for (const Message& m : g_messages) out.append(py::make_tuple(m.level, m.topic, m.text));
    g_messages.clear();
    g_dropped = 0;
    return out;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "neuronsim's native library (use the neuronsim package, not this module)";
    // SystemC's banner would go to stdout when the first simulation context is made.
    setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
    neuronsim::model::set_log_sink(queue_message);
    static py::exception<neuronsim::Error> error(m, "Error", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const neuronsim::Error& e) {
            error(e.what());
        }
    });
    m.attr("__version__") = NEURONSIM_VERSION;
    m.def("take_messages", &take_messages, "The library's queued messages as (level, topic, text), oldest first; clears the queue.");
    neuronsim::python::bind_act(m);
    neuronsim::python::bind_run(m);
    neuronsim::python::bind_cptc(m);
}
