// The text trace reader and the assembler: records, directives, file:line errors, streaming.
#include <filesystem>

#include <gtest/gtest.h>

#include "model/common/error.h"
#include "model/isa/opcodes.h"
#include "model/trace/assembler.h"
#include "model/trace/trace_reader.h"
#include "tests/support/profile_builder.h"
#include "tests/support/run_cli.h"

namespace neuronsim::test {
namespace {

using namespace model::trace;

std::string error_at(const std::string& line) {
    try {
        parse_trace_line(line, "t.trace", 7, ".");
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(TraceReader, RecordsAndComments) {
    TempDir t;
    t.write("w.bin", std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
    std::string path = t.write("a.trace",
                               "# header\n\n"
                               "act sync wait=1>=1   # trailing comment\r\n"
                               ".data sbuf:3:0x10 partitions=2 f32 1.0 0x40000000\n"
                               ".data dram:0x100 file=w.bin\n"
                               ".data sbuf:0:0 partitions=4 file=w.bin\n"
                               ".dump psum:1:0x20 bytes=64 partitions=3 file=out/p.bin\n");
    TraceReader r(path);
    auto a = r.next();
    ASSERT_TRUE(a);
    EXPECT_EQ(a->kind, Record::Kind::Instruction);
    EXPECT_EQ(a->line, 3u);
    EXPECT_EQ(a->instruction.engine, "act");
    EXPECT_EQ(a->instruction.bundle.opcode(), 0xA0);
    auto d = r.next();
    EXPECT_EQ(d->kind, Record::Kind::Data);
    EXPECT_EQ(d->data.partitions, 2u);
    EXPECT_EQ(d->data.bytes.size(), 16u);  // 8 bytes, replicated per partition
    EXPECT_EQ(d->data.bytes[3], 0x3f);
    EXPECT_EQ(d->data.bytes[15], 0x40);
    EXPECT_EQ(d->data.size, 16u);
    auto f = r.next();
    EXPECT_EQ(f->data.size, 8u);
    EXPECT_TRUE(f->data.bytes.empty()) << "a file's bytes are streamed when applied, not held";
    EXPECT_EQ(f->data.file, std::filesystem::absolute(t.file("w.bin")).lexically_normal().string());
    std::string got;
    read_data(f->data, 2, 5, [&](const uint8_t* p, size_t n) { got.append(reinterpret_cast<const char*>(p), n); });
    EXPECT_EQ(got, std::string("\x03\x04\x05\x06\x07", 5));
    auto g = r.next();
    EXPECT_EQ(g->data.partitions, 4u);
    auto dump = r.next();
    EXPECT_EQ(dump->kind, Record::Kind::Dump);
    EXPECT_EQ(dump->dump.bytes, 64u);
    EXPECT_EQ(dump->dump.partitions, 3u);
    EXPECT_FALSE(r.next());
    // A file that changed since the trace was read is an error naming it, not other bytes.
    t.write("w.bin", std::string(9, 'x'));
    try {
        read_data(f->data, 0, 8, [](const uint8_t*, size_t) {});
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("w.bin: is 9 bytes now, 8 bytes when the trace was read"), std::string::npos) << e.what();
    }
}

// setup.trace's directives carry "# from FILE:LINE" of the trace they came from; a CRLF line
// keeps its '\r' out of both the words and that origin.
TEST(TraceReader, DirectiveOriginWithCarriageReturn) {
    auto r = parse_trace_line(".reg 3 7  # from k.trace:42\r", "setup.trace", 2, ".");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->reg.value, 7u);
    EXPECT_EQ(r->where(), "k.trace:42");
    EXPECT_EQ(error_at(".reg 3 x  # from k.trace:42\r"), "k.trace:42: value: expected a number in [0, 4294967295], got \"x\"");
    EXPECT_EQ(error_at(".reg 3 x\r"), "t.trace:7: value: expected a number in [0, 4294967295], got \"x\"");
    EXPECT_FALSE(parse_trace_line("  # only a comment\r", "t.trace", 1, "."));
}

TEST(TraceReader, ErrorsNameFileAndLine) {
    EXPECT_NE(error_at("act activate fnc=2").find("t.trace:7: 'activate' has no field 'fnc'"), std::string::npos);
    EXPECT_NE(error_at("tensor activate").find("t.trace:7: unknown engine 'tensor'"), std::string::npos);
    EXPECT_NE(error_at("act").find("t.trace:7: expected ENGINE MNEMONIC"), std::string::npos);
    EXPECT_NE(error_at(".load dram:0 u8 1").find("t.trace:7: unknown directive \".load\" (expected .data, .dump or .reg)"), std::string::npos);
    EXPECT_NE(error_at(".data hbm:0 u8 1").find("t.trace:7: expected a location"), std::string::npos);
    EXPECT_NE(error_at(".data dram:0 f32 one").find("t.trace:7: .data: \"one\" is not a float32"), std::string::npos);
    EXPECT_NE(error_at(".data dram:0 u8 256").find("expected a number in [0, 255]"), std::string::npos);
    EXPECT_NE(error_at(".data dram:0 partitions=2 u8 1").find("partitions= applies to sbuf/psum only"), std::string::npos);
    EXPECT_NE(error_at(".data sbuf:0:0 file=/nonexistent.bin").find("t.trace:7: /nonexistent.bin: cannot open"), std::string::npos);
    EXPECT_NE(error_at(".dump dram:0 bytes=4 file=../x").find("relative path inside the output directory"), std::string::npos);
    EXPECT_NE(error_at(".dump dram:0 file=x").find("needs bytes= and file="), std::string::npos);
    EXPECT_NE(error_at(".data sbuf:200:0 u8 1").find("partition: expected a number in [0, 127]"), std::string::npos);
    TempDir t;
    std::string p = t.write("b.trace", "act sync\nact sync\n\nact sync wait=1>>2\n");
    TraceReader r(p);
    r.next();
    r.next();
    try {
        r.next();
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(p + ":4: wait=1>>2"), std::string::npos) << e.what();
    }
}

TEST(Assembler, StreamsPerEngineAndRoundTrip) {
    TempDir t;
    std::string trace = t.write("c.trace",
                                ".data dram:0x0 u32 7 8\n"
                                "dma0 copy src=dram:0x0 dst=sbuf:0:0x0 partitions=2 bytes=8 update=0+1\n"
                                "act sync wait=0>=1\n"
                                "dma1.3 copy src=sbuf:0:0 dst=dram:0x1000 partitions=2 bytes=8 dst_stride=8\n"
                                "act halt\n"
                                ".dump dram:0x1000 bytes=16 file=o.bin\n");
    AssembleResult r = assemble_trace(trace, t.file("s"));
    EXPECT_EQ(r.instructions.at("act"), 2u);
    EXPECT_EQ(r.instructions.at("dma0"), 1u);
    EXPECT_EQ(r.instructions.at("dma1.3"), 1u);
    EXPECT_EQ(r.directives, 2u);
    auto streams = list_streams(t.file("s"));
    EXPECT_EQ(streams.size(), 3u);
    EXPECT_EQ(std::filesystem::file_size(streams.at("act")), 128u);
    // disasm every stream, assemble the text again: the same bytes.
    std::string text;
    for (const auto& [engine, path] : streams) {
        CliResult d = run_cli("disasm " + path);
        ASSERT_EQ(d.status, 0) << d.err;
        text += d.out;
    }
    text += read_file(t.file("s/setup.trace"));
    std::string trace2 = t.write("d.trace", text);
    assemble_trace(trace2, t.file("s2"));
    for (const auto& [engine, path] : streams) EXPECT_EQ(read_file(path), read_file(t.file("s2/" + engine + ".bin"))) << engine;
}

TEST(Assembler, StreamReaderRejectsTruncatedStreams) {
    TempDir t;
    t.write("act.bin", std::string(100, '\0'));
    try {
        BundleStream s(t.file("act.bin"));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("act.bin: byte offset 64: 36 trailing bytes"), std::string::npos) << e.what();
    }
    t.write("vector.bin", "");
    EXPECT_THROW(list_streams(t.path()), Error);
}

}  // namespace
}  // namespace neuronsim::test
