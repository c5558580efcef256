#include "tests/support/profile_builder.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "model/fp/bits.h"

namespace neuronsim::test {

uint32_t bits(float f) { return model::fp::bits_of(f); }
float flt(uint32_t u) { return model::fp::float_of(u); }

Section sec_bits(uint32_t x, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3) { return Section{flt(x), flt(d0), flt(d1), flt(d2), flt(d3)}; }

Section sec(float x, float d0, float d1, float d2, float d3) { return Section{x, d0, d1, d2, d3}; }

void add_octave(Region& r, int exponent, int extract_size, const std::vector<Section>& sections) {
    Region::Octave& o = r.octaves[exponent + 127];
    o.declared = true;
    o.extract_size = static_cast<uint8_t>(extract_size);
    o.first = static_cast<uint32_t>(r.sections.size());
    o.count = static_cast<uint32_t>(sections.size());
    o.num_sections = 1 << extract_size;
    o.extract_lsb = 23 - extract_size;
    r.sections.insert(r.sections.end(), sections.begin(), sections.end());
}

SatRegion sat(int32_t sat_point, int32_t mantissa_point, const Section& s) { return SatRegion{sat_point, mantissa_point, s}; }

Profile clamp_only(const std::string& name, const Section& all) {
    Profile p;
    p.name = name;
    // Every positive input is "above" the high threshold at biased exponent 0, mantissa 0;
    // likewise on the negative side: the whole line is one clamp per side.
    p.sat_pos_high = sat(0, 0, all);
    p.sat_pos_low = sat(0, 0, all);
    p.sat_neg_high = sat(0, 0, all);
    p.sat_neg_low = sat(0, 0, all);
    return p;
}

TempDir::TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "neuronsim-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& contents) const {
    std::string p = file(name);
    std::ofstream f(p, std::ios::binary);
    f << contents;
    return p;
}

}  // namespace neuronsim::test
