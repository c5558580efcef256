// SHA-256: both compression functions give the published digests (FIPS 180-4's examples) and
// coreutils' sha256sum on random files, and equal each other over every length around the block
// and padding boundaries, fed in random pieces.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/io/sha256.h"
#include "model/io/write_file.h"
#include "tests/support/profile_builder.h"

namespace neuronsim::test {
namespace {

using model::io::Sha256;
using model::io::Sha256Impl;

std::vector<Sha256Impl> impls() {
    std::vector<Sha256Impl> v{Sha256Impl::Portable};
    if (model::io::sha256_shani_supported()) v.push_back(Sha256Impl::ShaNi);
    return v;
}

const char* name(Sha256Impl i) { return i == Sha256Impl::ShaNi ? "ShaNi" : "Portable"; }

std::string random_bytes(std::mt19937_64& rng, size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
}

TEST(Sha256, PublishedDigests) {
    const std::string million_a(1000000, 'a');
    const std::pair<std::string, std::string> cases[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {million_a, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    for (Sha256Impl impl : impls())
        for (const auto& [msg, digest] : cases) EXPECT_EQ(Sha256(impl).update(msg).hex(), digest) << name(impl) << ", " << msg.size() << " bytes";
}

TEST(Sha256, ImplementationsAgreeOnEveryLengthAndPiecing) {
    if (impls().size() < 2) GTEST_SKIP() << "this CPU has no SHA extensions: only the portable function runs";
    std::mt19937_64 rng(11);
    for (size_t len = 0; len <= 600; ++len) {
        const std::string msg = random_bytes(rng, len);
        Sha256 a(Sha256Impl::Portable), b(Sha256Impl::ShaNi);
        a.update(msg);
        for (size_t at = 0; at < len;) {  // random pieces: whole blocks and partial buffers mixed
            const size_t n = std::min<size_t>(len - at, rng() % 200);
            b.update(msg.data() + at, n);
            at += n;
        }
        ASSERT_EQ(a.hex(), b.hex()) << len << " bytes";
    }
}

TEST(Sha256, FilesMatchCoreutils) {
    TempDir t;
    std::mt19937_64 rng(5);
    for (size_t len : {size_t{0}, size_t{55}, size_t{64}, size_t{(1u << 20) + 17}, size_t{3u << 20}}) {
        const std::string path = t.file("f" + std::to_string(len));
        model::io::write_file_atomic(path, random_bytes(rng, len));
        FILE* p = popen(("sha256sum '" + path + "'").c_str(), "r");  // a temporary directory's path: no quote in it
        ASSERT_NE(p, nullptr);
        char digest[65] = {};
        ASSERT_EQ(std::fscanf(p, "%64s", digest), 1);
        pclose(p);
        EXPECT_EQ(model::io::sha256_file(path, "test file"), std::string(digest)) << len << " bytes";
        for (Sha256Impl impl : impls()) {
            std::string all;
            FILE* f = std::fopen(path.c_str(), "rb");
            ASSERT_NE(f, nullptr);
            for (int c; (c = std::fgetc(f)) != EOF;) all += static_cast<char>(c);
            std::fclose(f);
            EXPECT_EQ(Sha256(impl).update(all).hex(), std::string(digest)) << name(impl) << ", " << len << " bytes";
        }
    }
}

}  // namespace
}  // namespace neuronsim::test
