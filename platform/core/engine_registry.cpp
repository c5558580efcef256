// The registry of engines by stream class: the built-in ACT, POOL, VectorE, TensorE and DMA-queue engines,
// listed here once (a static library would drop self-registering objects nobody references).
#include <map>

#include "model/common/error.h"
#include "model/isa/opcodes.h"
#include "platform/act/act_engine.h"
#include "platform/core/engine.h"
#include "platform/dve/dve_engine.h"
#include "platform/pe/pe_engine.h"
#include "platform/pool/pool_engine.h"

namespace neuronsim::platform {

namespace {

std::map<uint32_t, EngineFactory>& registry() {
    static std::map<uint32_t, EngineFactory> r = {
        {model::isa::kOnAct,
         [](const EngineSpec& s, EngineContext& c, InstructionSource& src) -> std::unique_ptr<Engine> {
             return std::make_unique<ActEngine>(s.label.c_str(), c, src);
         }},
        {model::isa::kOnPool,
         [](const EngineSpec& s, EngineContext& c, InstructionSource& src) -> std::unique_ptr<Engine> {
             return std::make_unique<PoolEngine>(s.label.c_str(), c, src);
         }},
        {model::isa::kOnDve,
         [](const EngineSpec& s, EngineContext& c, InstructionSource& src) -> std::unique_ptr<Engine> {
             return std::make_unique<DveEngine>(s.label.c_str(), c, src);
         }},
        {model::isa::kOnPe,
         [](const EngineSpec& s, EngineContext& c, InstructionSource& src) -> std::unique_ptr<Engine> {
             return std::make_unique<PeEngine>(s.label.c_str(), c, src);
         }},
        {model::isa::kOnDma,
         [](const EngineSpec& s, EngineContext& c, InstructionSource& src) -> std::unique_ptr<Engine> {
             return std::make_unique<DmaQueueEngine>(module_name(s.label).c_str(), s.label, c, src, s.dma_engine, s.dma_queue);
         }},
    };
    return r;
}

}  // namespace

void register_engine(uint32_t cls, EngineFactory f) { registry()[cls] = std::move(f); }

std::unique_ptr<Engine> make_engine(uint32_t cls, const EngineSpec& spec, EngineContext& ctx, InstructionSource& source) {
    auto it = registry().find(cls);
    if (it == registry().end()) throw Error("no engine is registered for stream " + spec.label);
    return it->second(spec, ctx, source);
}

}  // namespace neuronsim::platform
