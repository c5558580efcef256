#include "model/isa/act_operands.h"

namespace neuronsim::model::isa {

std::optional<OperandSource> scale_or_imm_source(uint8_t field) {
    switch (field) {
        case 0: return OperandSource::Immediate;
        case 1: return OperandSource::Pointer;
        case 2: return OperandSource::Register;
        default: return std::nullopt;
    }
}

std::optional<OperandSource> bias_source(uint8_t field) {
    switch (field) {
        case 0: return OperandSource::Pointer;
        case 1: return OperandSource::Immediate;
        case 2: return OperandSource::Register;
        default: return std::nullopt;
    }
}

uint8_t bias_src_n_of(OperandSource s) { return s == OperandSource::Pointer ? 0 : s == OperandSource::Immediate ? 1 : 2; }

}  // namespace neuronsim::model::isa
