#pragma once
// A benchmark's window on the CPTC decodes (bench/run_vs_passes_bench.cpp), as
// platform/act/act_pass_tap.h is on ACT's passes: while a tap is set, it sees each partition's
// decode the GPSIMD firmware model hands decode_fast, with its stream, so that the benchmark can
// time the same decodes alone. Unset (the default) it costs one atomic load per partition.
// Process-wide: decodes come from whichever host thread runs a GPSIMD core's partitions (a tap
// that keeps them runs the simulation on one).
#include <cstddef>
#include <cstdint>

#include "model/cptc/decode.h"

namespace neuronsim::model::cptc {

class DecodeTap {
public:
    virtual ~DecodeTap() = default;
    virtual void decode(const DecodeParams& p, const uint8_t* stream, size_t stream_bytes) = 0;
};

// nullptr removes the tap. The caller keeps `tap` alive until it is removed.
void set_decode_tap(DecodeTap* tap);
DecodeTap* decode_tap();

}  // namespace neuronsim::model::cptc
