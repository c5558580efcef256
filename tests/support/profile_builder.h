#pragma once
// Test helpers: build small profiles in memory and write them in the exact shipped schema.
#include <cstdint>
#include <string>
#include <vector>

#include "model/pwp/profile.h"

namespace neuronsim::test {

using model::pwp::Profile;
using model::pwp::Region;
using model::pwp::SatRegion;
using model::pwp::Section;

// A section from raw bit patterns, in the JSON's (x, d0, d1, d2, d3) order.
Section sec_bits(uint32_t x, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3);
Section sec(float x, float d0, float d1 = 0, float d2 = 0, float d3 = 0);

void add_octave(Region& r, int exponent, int extract_size, const std::vector<Section>& sections);
SatRegion sat(int32_t sat_point, int32_t mantissa_point, const Section& s);

// All four clamps carry the same polynomial; no octave is stored (a budget-1 resident).
Profile clamp_only(const std::string& name, const Section& all);

// A fresh directory under the system temp dir, removed with its contents on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::string write(const std::string& name, const std::string& contents) const;

private:
    std::string path_;
};

uint32_t bits(float f);
float flt(uint32_t u);

}  // namespace neuronsim::test
