#include "platform/core/pattern_rows.h"

#include <cstring>

namespace neuronsim::platform {

std::vector<uint8_t> gather(const Pattern& p, uint32_t nch) {
    const uint64_t n = p.elements();
    std::vector<uint8_t> rows(static_cast<size_t>(n * nch * p.bytes));
    for (uint32_t q = 0; q < nch; ++q) {
        const uint8_t* row = p.base + uint64_t{p.partition + q} * p.per + p.ap.lo;
        model::isa::AccessPattern::Cursor c(p.ap);
        uint8_t* out = rows.data() + q * n * p.bytes;
        for (uint64_t i = 0; i < n; ++i) std::memcpy(out + i * p.bytes, row + c.next(), p.bytes);
    }
    return rows;
}

void scatter(const std::vector<uint8_t>& rows, const Pattern& p, uint32_t nch) {
    const uint64_t n = p.elements();
    for (uint32_t q = 0; q < nch; ++q) {
        uint8_t* row = p.base + uint64_t{p.partition + q} * p.per + p.ap.lo;
        model::isa::AccessPattern::Cursor c(p.ap);
        const uint8_t* in = rows.data() + q * n * p.bytes;
        for (uint64_t i = 0; i < n; ++i) std::memcpy(row + c.next(), in + i * p.bytes, p.bytes);
    }
}

RowWalk::RowWalk(const Pattern& p, uint32_t q, model::fp::Dtype d)
    : row_(p.base + uint64_t{p.partition + q} * p.per + p.ap.lo),
      d_(d),
      bytes_(p.bytes),
      plain_(plain_row(p)),
      in_place_(plain_ && d == model::fp::Dtype::Fp32 && reinterpret_cast<uintptr_t>(row_) % alignof(float) == 0),
      c_(p.ap) {}

const float* RowReader::next(float* buf, size_t m) {
    if (!in_place_) {
        read(buf, m);
        return buf;
    }
    const float* p = reinterpret_cast<const float*>(row_) + at_;
    at_ += m;
    return p;
}

void RowReader::read(float* out, size_t m) {
    if (plain_) {
        model::fp::to_f32_n(d_, row_ + at_ * bytes_, out, m);
        at_ += m;
        return;
    }
    for (size_t j = 0; j < m; ++j) out[j] = model::fp::to_f32(d_, row_ + c_.next());
}

float* RowWriter::begin(float* buf, size_t) { return in_place_ ? reinterpret_cast<float*>(row_) + at_ : buf; }

void RowWriter::end(const float* at, size_t m) {
    if (in_place_) at_ += m;  // (computed where it belongs)
    else write(at, m);
}

void RowWriter::write(const float* in, size_t m) {
    if (plain_) {
        model::fp::from_f32_n(d_, in, row_ + at_ * bytes_, m);
        at_ += m;
        return;
    }
    for (size_t j = 0; j < m; ++j) model::fp::from_f32(d_, in[j], row_ + c_.next());
}

}  // namespace neuronsim::platform
