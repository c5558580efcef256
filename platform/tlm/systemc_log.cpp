#include "platform/tlm/systemc_log.h"

#include <systemc>

#include "model/common/log.h"

namespace neuronsim::platform {

void log_through_systemc_unless_routed() {
    model::set_log_sink_if_unset([](model::LogLevel level, const char* topic, const std::string& message) {
        const std::string type = std::string("neuronsim/") + topic;
        switch (level) {
            case model::LogLevel::Debug: SC_REPORT_INFO_VERB(type.c_str(), message.c_str(), sc_core::SC_DEBUG); break;
            case model::LogLevel::Info: SC_REPORT_INFO_VERB(type.c_str(), message.c_str(), sc_core::SC_MEDIUM); break;
            case model::LogLevel::Warning: SC_REPORT_WARNING(type.c_str(), message.c_str()); break;
        }
    });
}

}  // namespace neuronsim::platform
