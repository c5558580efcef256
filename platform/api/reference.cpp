// neuronsim/reference.h: the public face of the model's evaluators.
#include "neuronsim/reference.h"

#include <map>
#include <memory>

#include "model/cptc/cptc.h"
#include "model/fp/dtype.h"
#include "model/pwp/catalog_writer.h"
#include "model/pwp/packer.h"
#include "model/pwp/table_eval.h"

namespace neuronsim::reference {

float activation(const std::string& set, const std::string& function, float x) {
    struct Loaded {
        model::pwp::PackedSet set;
        std::unique_ptr<model::pwp::TableEvaluator> eval;
    };
    static std::map<std::string, std::unique_ptr<Loaded>> cache;  // a set is parsed once
    auto& l = cache[set];
    if (!l) {
        const bool path = set.find('/') != std::string::npos || set.find(".json") != std::string::npos;
        auto fresh = std::make_unique<Loaded>();
        fresh->set = model::pwp::read_set(path ? set : model::pwp::default_catalog_dir() + "/pwp_bin_trainium/" + set + ".json");
        fresh->eval = std::make_unique<model::pwp::TableEvaluator>(fresh->set);
        l = std::move(fresh);
    }
    return l->eval->evaluate(l->eval->lookup(function), x);
}

uint16_t f32_to_fp16(float x) { return model::fp::f32_to_fp16(x); }
float fp16_to_f32(uint16_t h) { return model::fp::fp16_to_f32(h); }

std::vector<int32_t> cptc_codes(const uint8_t* stream, uint64_t elements, unsigned bits, bool is_signed) {
    return model::cptc::unpack_codes(stream, elements, bits, is_signed);
}

float cptc_block_scale(const uint8_t* stream, unsigned bits, uint64_t elements, unsigned block_size, uint16_t mconst1, uint64_t i) {
    return model::cptc::block_scale(stream, bits, elements, block_size, mconst1, i);
}

}  // namespace neuronsim::reference
