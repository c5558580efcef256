#include "sweep/kernel_points.h"

#include <nlohmann/json.hpp>

#include "model/common/error.h"
#include "model/io/write_file.h"
#include "model/workloads/gen_limits.h"
#include "neuronsim/config.h"

namespace neuronsim::sweep {

namespace wl = model::workloads;

wl::KernelRequest kernel_request(const std::string& request_json) {
    const nlohmann::json j = nlohmann::json::parse(request_json);
    wl::KernelRequest r;
    r.kernel = j.value("name", "");
    r.model = j.value("model", "");
    if (j.contains("shape")) wl::parse_kernel_shape(j.at("shape").get<std::string>(), r);
    if (j.contains("dtype")) r.dtype = wl::parse_kernel_dtype(j.at("dtype").get<std::string>());
    r.act = j.value("act", "");
    r.bits = j.value("bits", 4u);
    if (j.contains("eps")) r.eps = std::stof(j.at("eps").get<std::string>());
    r.seed = j.value("seed", uint64_t{1});
    r.lanes = j.value("dma_lanes", 0u);
    r.buffers = j.value("buffers", 0u);
    r.max_data_bytes = j.value("max_data_mib", uint64_t{64}) << 20;
    r.layer = j.value("layer", 0u);
    r.seq = j.value("seq", uint64_t{0});
    return r;
}

std::string KernelTraces::trace_for(const Point& p) {
    std::vector<std::string> overrides;
    for (const Param& prm : p.params) overrides.push_back(prm.key + "=" + prm.value);
    const wl::GenLimits g = wl::gen_limits(compose_config(p.generation, p.overlay_paths, overrides));
    const nlohmann::json limits = {g.name,       g.nc_version, g.partitions, g.sbuf_bytes, g.dma_engines, g.table_load_dma_engine,
                                   g.semaphores, g.dram_bytes, g.cptc_decode};
    const std::string key = fnv1a64_hex(p.kernel + "\n" + limits.dump());
    if (auto it = built_.find(key); it != built_.end()) return it->second;
    if (auto it = failed_.find(key); it != failed_.end()) throw Error(it->second);
    const std::string dir = dir_ + "/" + key;
    const std::string path = dir + "/kernel.trace";
    try {
        model::io::make_directories(dir);
        (void)wl::write_kernel(kernel_request(p.kernel), g, path);
    } catch (const std::exception& e) {
        failed_[key] = std::string("cannot build ") + p.trace + " for " + p.generation + ": " + e.what();
        throw Error(failed_[key]);
    }
    return built_[key] = path;
}

}  // namespace neuronsim::sweep
