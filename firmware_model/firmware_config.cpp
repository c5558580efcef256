#include "firmware_model/pool_firmware.h"

namespace neuronsim::firmware_model {

FirmwareConfig firmware_config(const Config& c, bool values) {
    FirmwareConfig f;
    f.nc_version = c.generation.nc_version;  // the firmware reads the core's version register
    f.cptc_library = c.gpsimd.cptc_library;
    f.coretype_perf = c.gpsimd.coretype_perf;
    f.cptc_flag = c.gpsimd.cptc_flag;
    f.routing = c.gpsimd.cptc_routing;
    f.max_elements = c.run.max_elements_per_instruction;
    f.values = values;
    return f;
}

}  // namespace neuronsim::firmware_model
