// An example virtual platform: two NeuronCores of different generations behind a TLM-2.0
// router, sharing the platform's own DRAM model, each driven by a host thread that acts as a
// driver would (no ISS): it places the function sets and input tensors in DRAM, writes
// instruction bundles into queues in DRAM, programs the queue registers over mmio, rings the
// doorbells, waits for the interrupt and reads the results back. The hosts run temporally
// decoupled with a 1 us global quantum, on a 64-bit bus (so the cores are NeuronCore64). Every
// output bit is checked against neuronsim's reference models, once in DRAM and once in SBUF
// through DMI over the core's window; functions and sets are named, not numbered. Each core's
// statistics are printed (nothing with --quiet: then only a failure prints). Uses only the
// installed package.
//
//   npu0: MARIANA, CPTC4 weights decoded on GPSIMD, then GELU on ScalarE
//   npu1: CAYMAN, a row softmax (exp with the accumulated row sum, reciprocal, scale)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <neuronsim/act_sets.h>
#include <neuronsim/assembler.h>
#include <neuronsim/neuron_core.h>
#include <neuronsim/reference.h>
#include <neuronsim/registers.h>
#include <neuronsim/version.h>

namespace {

constexpr unsigned kBusWidth = 64;
constexpr uint64_t kDramBytes = 256ull << 20;
const sc_core::sc_time kDramLatency(5, sc_core::SC_NS);  // per transaction, annotated

// The platform's DRAM: flat, any number of initiators (the router and both cores), DMI.
struct Dram : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<Dram, kBusWidth> socket;
    std::vector<uint8_t> bytes;
    explicit Dram(sc_core::sc_module_name n) : sc_core::sc_module(n), socket("socket"), bytes(kDramBytes) {
        socket.register_b_transport(this, &Dram::b_transport);
        socket.register_transport_dbg(this, &Dram::transport_dbg);
        socket.register_get_direct_mem_ptr(this, &Dram::get_direct_mem_ptr);
    }
    void b_transport(int id, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
        if (transport_dbg(id, t)) {
            delay += kDramLatency;
            t.set_dmi_allowed(true);
        }
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload& t) {
        const uint64_t a = t.get_address(), n = t.get_data_length();
        if (a > bytes.size() || n > bytes.size() - a || t.get_byte_enable_ptr()) {
            t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return 0;
        }
        if (t.is_read()) std::memcpy(t.get_data_ptr(), bytes.data() + a, n);
        else if (t.is_write()) std::memcpy(bytes.data() + a, t.get_data_ptr(), n);
        t.set_response_status(tlm::TLM_OK_RESPONSE);
        return static_cast<unsigned>(n);
    }
    bool get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
        d.allow_read_write();
        d.set_dmi_ptr(bytes.data());
        d.set_start_address(0);
        d.set_end_address(bytes.size() - 1);
        d.set_read_latency(kDramLatency);
        d.set_write_latency(kDramLatency);
        return true;
    }
};

// The host bus: DRAM at 0, npu0's registers at 1 TiB, npu1's at 2 TiB; DMI requests are
// passed on with the grant moved into the bus's addresses.
struct Router : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<Router, kBusWidth> from_hosts;
    tlm_utils::simple_initiator_socket<Router, kBusWidth> to_dram, to_npu0, to_npu1;
    static constexpr uint64_t kNpu0 = 1ull << 40, kNpu1 = 2ull << 40, kWindow = 1ull << 40;
    explicit Router(sc_core::sc_module_name n) : sc_core::sc_module(n), from_hosts("from_hosts"), to_dram("to_dram"), to_npu0("to_npu0"), to_npu1("to_npu1") {
        from_hosts.register_b_transport(this, &Router::b_transport);
        from_hosts.register_transport_dbg(this, &Router::transport_dbg);
        from_hosts.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
    }
    tlm_utils::simple_initiator_socket<Router, kBusWidth>& route(tlm::tlm_generic_payload& t, uint64_t* base = nullptr) {
        const uint64_t a = t.get_address();
        const uint64_t b = a >= kNpu1 ? kNpu1 : a >= kNpu0 ? kNpu0 : 0;
        if (base) *base = b;
        t.set_address(a - b);
        return b == kNpu1 ? to_npu1 : b == kNpu0 ? to_npu0 : to_dram;
    }
    bool get_direct_mem_ptr(int, tlm::tlm_generic_payload& t, tlm::tlm_dmi& d) {
        const uint64_t a = t.get_address();
        uint64_t base = 0;
        const bool granted = route(t, &base)->get_direct_mem_ptr(t, d);
        t.set_address(a);
        if (granted) {
            d.set_start_address(d.get_start_address() + base);
            d.set_end_address(d.get_end_address() + base);
        }
        return granted;
    }
    void b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time& d) {
        const uint64_t a = t.get_address();
        route(t)->b_transport(t, d);
        t.set_address(a);
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload& t) {
        const uint64_t a = t.get_address();
        const unsigned n = route(t)->transport_dbg(t);
        t.set_address(a);
        return n;
    }
};

int failures = 0;
void check(bool ok, const std::string& what) {
    if (!ok && ++failures <= 10) std::fprintf(stderr, "MISMATCH: %s\n", what.c_str());
}
uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// A driver for one core: everything through the bus, register writes temporally decoupled.
struct Host : sc_core::sc_module {
    SC_HAS_PROCESS(Host);
    tlm_utils::simple_initiator_socket<Host, kBusWidth> bus;
    sc_core::sc_in<bool> irq;
    uint64_t mmio, dram_base;  // the core's registers and its part of DRAM on the bus
    const neuronsim::Config& cfg;
    std::function<void(Host&)> program;
    tlm_utils::tlm_quantumkeeper qk;

    Host(sc_core::sc_module_name n, uint64_t mmio_base, uint64_t dram_part, const neuronsim::Config& c, std::function<void(Host&)> p)
        : sc_core::sc_module(n), bus("bus"), irq("irq"), mmio(mmio_base), dram_base(dram_part), cfg(c), program(std::move(p)) {
        qk.reset();
        SC_THREAD(run);
    }
    void run() { program(*this); }

    bool dmi_hinted = false;  // the last access came back with dmi_allowed
    void access(tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) {
        tlm::tlm_generic_payload t;
        t.set_command(cmd);
        t.set_address(addr);
        t.set_data_ptr(static_cast<unsigned char*>(data));
        t.set_data_length(len);
        t.set_streaming_width(len);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = qk.get_local_time();
        bus->b_transport(t, d);
        dmi_hinted = t.is_dmi_allowed();
        qk.set(d);
        if (t.get_response_status() != tlm::TLM_OK_RESPONSE) throw std::runtime_error(name() + std::string(": bus error at ") + std::to_string(addr));
        if (qk.need_sync()) qk.sync();
    }
    uint32_t rd(uint64_t r) {
        uint32_t v;
        access(tlm::TLM_READ_COMMAND, mmio + r, &v, 4);
        return v;
    }
    void wr(uint64_t r, uint32_t v) { access(tlm::TLM_WRITE_COMMAND, mmio + r, &v, 4); }
    void dram_write(uint64_t a, const void* p, size_t n) {  // bulk loads: debug transport, no time
        tlm::tlm_generic_payload t;
        t.set_command(tlm::TLM_WRITE_COMMAND);
        t.set_address(a);
        t.set_data_ptr(static_cast<unsigned char*>(const_cast<void*>(p)));
        t.set_data_length(static_cast<unsigned>(n));
        t.set_streaming_width(static_cast<unsigned>(n));
        if (bus->transport_dbg(t) != n) throw std::runtime_error("DRAM load failed");
    }
    std::vector<uint8_t> dram_read(uint64_t a, size_t n) {
        std::vector<uint8_t> v(n);
        access(tlm::TLM_READ_COMMAND, a, v.data(), static_cast<unsigned>(n));
        return v;
    }
    // The function sets below the core's part of DRAM, where LoadActFuncSet finds them.
    neuronsim::ActSetRegion sets;
    void place_sets(uint64_t top) {
        sets = neuronsim::build_act_set_region(cfg, "", top);
        dram_write(sets.base, sets.bytes.data(), sets.bytes.size());
        wr(neuronsim::reg::kActSetsBaseLo, static_cast<uint32_t>(sets.base));
        wr(neuronsim::reg::kActSetsBaseHi, static_cast<uint32_t>(sets.base >> 32));
        wr(neuronsim::reg::kActSetsCount, sets.count);
    }
    // Names for the instructions' numbers (act_sets.h).
    std::string set_of(const std::string& func) const { return std::to_string(neuronsim::act_set_holding(sets, func)); }
    std::string func(const std::string& name) const { return std::to_string(neuronsim::act_func_id(sets, name)); }
    std::string set_named(const std::string& set) const { return std::to_string(neuronsim::act_set_index(sets, set)); }
    // SBUF through DMI over the core's window: [partition, offset .. + n) of each partition.
    std::vector<uint8_t> sbuf_by_dmi(uint64_t offset, size_t n) {
        uint32_t probe = 0;
        access(tlm::TLM_READ_COMMAND, mmio + neuronsim::reg::kSbufWindow, &probe, 4);
        if (!dmi_hinted) throw std::runtime_error(name() + std::string(": the SBUF window gave no DMI hint"));
        tlm::tlm_generic_payload t;
        t.set_command(tlm::TLM_READ_COMMAND);
        t.set_address(mmio + neuronsim::reg::kSbufWindow);
        tlm::tlm_dmi d;
        if (!bus->get_direct_mem_ptr(t, d) || !d.is_read_allowed()) throw std::runtime_error(name() + std::string(": no DMI into the SBUF window"));
        const uint64_t per = cfg.memory.sbuf_bytes_per_partition, start = mmio + neuronsim::reg::kSbufWindow;
        if (d.get_start_address() > start || d.get_end_address() < start + cfg.memory.partitions * per - 1)
            throw std::runtime_error(name() + std::string(": the SBUF grant does not cover SBUF"));
        const uint8_t* sbuf = d.get_dmi_ptr() + (start - d.get_start_address());
        std::vector<uint8_t> out;
        for (uint32_t p = 0; p < cfg.memory.partitions; ++p) out.insert(out.end(), sbuf + p * per + offset, sbuf + p * per + offset + n);
        return out;
    }
    // Assembles `lines` per engine into rings at `ring`, programs the queues and rings them.
    void submit(const std::vector<std::string>& lines, uint64_t ring) {
        std::vector<std::pair<std::string, std::vector<neuronsim::AssembledInstruction>>> queues;
        for (const auto& l : lines) {
            neuronsim::AssembledInstruction a = neuronsim::assemble_instruction(l);
            auto it = std::find_if(queues.begin(), queues.end(), [&](const auto& q) { return q.first == a.engine; });
            if (it == queues.end()) queues.push_back({a.engine, {}}), it = queues.end() - 1;
            it->second.push_back(a);
        }
        for (const auto& [engine, bundles] : queues) {
            for (size_t i = 0; i < bundles.size(); ++i) dram_write(ring + 64 * i, bundles[i].bundle.data(), 64);
            const uint64_t q = neuronsim::reg::kQueues + queue_of(engine) * neuronsim::reg::kQueueStride;
            wr(q + neuronsim::reg::kQueueBaseLo, static_cast<uint32_t>(ring));
            wr(q + neuronsim::reg::kQueueBaseHi, static_cast<uint32_t>(ring >> 32));
            wr(q + neuronsim::reg::kQueueSize, 64);
            wr(q + neuronsim::reg::kQueueTail, static_cast<uint32_t>(bundles.size()));  // the doorbell
            ring += 64 * 64;
        }
    }
    uint32_t queue_of(const std::string& engine) const {
        if (engine == "act") return 0;
        if (engine == "pool") return 1;
        return 2 + static_cast<uint32_t>(std::stoul(engine.substr(3))) * cfg.dma.queues_per_engine;
    }
    // Until every queue drained (or an error): irq is a level, IRQ_STATUS says why.
    void wait_done(unsigned queues) {
        qk.sync();
        unsigned drained = 0;
        while (drained < queues) {
            uint32_t s;
            while ((s = rd(neuronsim::reg::kIrqStatus)) == 0) {
                if (irq.read()) wait(sc_core::SC_ZERO_TIME);
                else wait(irq.posedge_event());
            }
            wr(neuronsim::reg::kIrqStatus, s);
            if (s & neuronsim::reg::kIrqError) {
                const uint32_t n = rd(neuronsim::reg::kErrorMessageLength);
                std::string msg(n, '\0');
                access(tlm::TLM_READ_COMMAND, mmio + neuronsim::reg::kErrorMessage, msg.data(), n);
                throw std::runtime_error(name() + std::string(": the core failed: ") + msg);
            }
            for (uint64_t w = 0; w < 9; ++w) {
                const uint32_t bits = rd(neuronsim::reg::kDrained + 4 * w);
                if (!bits) continue;
                wr(neuronsim::reg::kDrained + 4 * w, bits);
                drained += static_cast<unsigned>(__builtin_popcount(bits));
            }
        }
    }
};

// npu0: 128 CPTC4 codes per partition (one row replicated), decode to fp16, GELU to fp32.
void cptc_gelu(Host& h) {
    using neuronsim::reference::f32_to_fp16;
    using neuronsim::reference::fp16_to_f32;
    h.wr(neuronsim::reg::kIrqMask, neuronsim::reg::kIrqDrained | neuronsim::reg::kIrqError);
    h.place_sets(h.dram_base + (64ull << 20));
    // The stream: codes c(i) = (i * 5) % 16 - 8 in 4 bit planes, two fp16 block scales 0.125, 0.25.
    std::vector<uint8_t> row(80, 0);
    std::vector<int32_t> codes(128);
    for (int i = 0; i < 128; ++i) {
        codes[i] = (i * 5) % 16 - 8;
        const unsigned pos = ((i & 3u) << 4) | (static_cast<unsigned>(i % 64) >> 2), g = i / 64;  // docs/cptc-format.md
        for (unsigned b = 0; b < 4; ++b)
            if ((static_cast<uint32_t>(codes[i]) >> b) & 1) row[g * 32 + b * 8 + pos / 8] |= static_cast<uint8_t>(1u << (pos % 8));
    }
    const uint16_t scales[2] = {f32_to_fp16(0.125f), f32_to_fp16(0.25f)};
    std::memcpy(row.data() + 64, scales, 4);
    const uint64_t in = h.dram_base + 0x1000, out = h.dram_base + 0x100000;
    h.dram_write(in, row.data(), row.size());
    h.submit({"dma0 copy src=dram:" + std::to_string(in) + " dst=sbuf:0:0x0 partitions=128 bytes=80 src_stride=0 update=0+1",
              "pool conv_lut_load wait=0>=1 src=sbuf:0:0x0 src.num=4,5 src.step=1,4 in_dtype=9 out_dtype=7 num_active_rows=128 num_active_cols=128 "
              "mconst0=0x3c00 mconst1=0x100 row_grp=15 col_grp=15 block_size=64 lut_dtype=0x1c dst=sbuf:0:0x1000 dst.num=128,1,1 dst.step=1,0,0 update=1+1",
              "act load_act_func_set set=" + h.set_of("gelu"),
              "act activate func=" + h.func("gelu") +
                  " wait=1>=1 in_bias_dtype=0xa7 out_dtype=10 num_active_channels=128 scale=1.0 bias=0 bias_src_n=1 src=sbuf:0:0x1000 "
                  "src.step=1,0,0 src.num=128,1,1 dst=sbuf:0:0x2000 dst.step=1,0,0 dst.num=128,1,1 update=2+1",
              "dma1 copy src=sbuf:0:0x2000 dst=dram:" + std::to_string(out) + " partitions=128 bytes=512 dst_stride=512 wait=2>=1"},
             h.dram_base + 0x200000);
    h.wait_done(4);
    const std::vector<uint8_t> got = h.dram_read(out, 128 * 512);
    const std::vector<uint8_t> in_sbuf = h.sbuf_by_dmi(0x2000, 512);
    check(in_sbuf == got, "npu0: SBUF through DMI equals the copy in DRAM");
    const std::string gelu_set = h.sets.names[neuronsim::act_set_holding(h.sets, "gelu")];
    const std::vector<int32_t> decoded = neuronsim::reference::cptc_codes(row.data(), 128, 4, true);
    for (int i = 0; i < 128; ++i) {
        const float s = neuronsim::reference::cptc_block_scale(row.data(), 4, 128, 64, 0x100, static_cast<uint64_t>(i));
        check(decoded[i] == codes[i], "npu0 code " + std::to_string(i));
        float v = static_cast<float>(decoded[i]) * fp16_to_f32(0x3c00);
        v = v * s;
        float x = 1.0f * fp16_to_f32(f32_to_fp16(v));  // Activate: fp16 in, scale 1, bias 0
        x = x + 0.0f;
        const float want = neuronsim::reference::activation(gelu_set, "gelu", x);
        for (int p = 0; p < 128; ++p) {
            float y;
            std::memcpy(&y, got.data() + 512 * p + 4 * i, 4);
            check(bits(y) == bits(want), "npu0 partition " + std::to_string(p) + " element " + std::to_string(i));
        }
    }
}

// npu1: softmax over 128 partitions x 16 values (the softmax.trace kernel).
void softmax(Host& h) {
    h.wr(neuronsim::reg::kIrqMask, neuronsim::reg::kIrqDrained | neuronsim::reg::kIrqError);
    h.place_sets(h.dram_base + (64ull << 20));
    std::vector<float> x(128 * 16);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 29) - 14) / 7.0f;
    const uint64_t in = h.dram_base + 0x1000, out = h.dram_base + 0x100000;
    h.dram_write(in, x.data(), x.size() * 4);
    const std::string act = " in_bias_dtype=10 out_dtype=10 num_active_channels=128 bias=0 bias_src_n=1 ";
    h.submit({"dma0 copy src=dram:" + std::to_string(in) + " dst=sbuf:0:0x0 partitions=128 bytes=64 src_stride=64 update=0+1",
              "act load_act_func_set set=" + h.set_named("exp_and_others"),
              "act activate func=" + h.func("exp") + " wait=0>=1" + act +
                  "scale=1.0 accumulator_cmd=3 src=sbuf:0:0x0 src.step=1,0,0 src.num=16,1,1 dst=sbuf:0:0x1000 dst.step=1,0,0 dst.num=16,1,1",
              "act read_accumulator count=1 dtype=10 num_active_channels=128 dst=sbuf:0:0x2000 dst.num=1",
              "act load_act_func_set set=" + h.set_named("reciprocal_and_small"),
              "act activate func=" + h.func("reciprocal") + act + "scale=1.0 src=sbuf:0:0x2000 src.num=1,1,1 dst=sbuf:0:0x2004 dst.num=1,1,1",
              "act activate func=" + h.func("identity") + act +
                  "scale_src=1 scale=sbuf:0:0x2004 src=sbuf:0:0x1000 src.step=1,0,0 src.num=16,1,1 dst=sbuf:0:0x3000 dst.step=1,0,0 dst.num=16,1,1 update=1+1",
              "dma1 copy src=sbuf:0:0x3000 dst=dram:" + std::to_string(out) + " partitions=128 bytes=64 dst_stride=64 wait=1>=1"},
             h.dram_base + 0x200000);
    h.wait_done(3);
    const std::vector<uint8_t> got = h.dram_read(out, 128 * 64);
    using neuronsim::reference::activation;
    for (int p = 0; p < 128; ++p) {
        float e[16], sum = 0.0f;
        for (int i = 0; i < 16; ++i) {
            float v = 1.0f * x[16 * p + i];
            v = v + 0.0f;
            e[i] = activation("exp_and_others", "exp", v);
            sum = sum + e[i];  // the accumulator: element by element
        }
        float s = 1.0f * sum;
        s = s + 0.0f;
        const float r = activation("reciprocal_and_small", "reciprocal", s);
        for (int i = 0; i < 16; ++i) {
            float v = r * e[i];
            v = v + 0.0f;
            const float want = activation("reciprocal_and_small", "identity", v);
            float y;
            std::memcpy(&y, got.data() + 64 * p + 4 * i, 4);
            check(bits(y) == bits(want), "npu1 partition " + std::to_string(p) + " element " + std::to_string(i));
        }
    }
}

bool quiet = false;

void print_stats(const char* who, const neuronsim::NeuronCoreDevice& core) {
    const std::string s = core.stats_json();
    auto field = [&](const std::string& key) {
        const size_t at = s.find("\"" + key + "\":");
        return at == std::string::npos ? std::string("?") : s.substr(at + key.size() + 3, s.find_first_of(",}", at + key.size() + 3) - at - key.size() - 3);
    };
    if (quiet) return;
    std::printf("%s: %s, %s instructions, busy window %s ps\n", who, field("generation").c_str(), field("instructions").c_str(), field("simulated_ps").c_str());
}

}  // namespace

int sc_main(int argc, char* argv[]) {
    quiet = argc > 1 && std::string(argv[1]) == "--quiet";
    if (!quiet) std::printf("neuronsim %s example virtual platform\n", NEURONSIM_VERSION);
    tlm_utils::tlm_quantumkeeper::set_global_quantum(sc_core::sc_time(1, sc_core::SC_US));
    const neuronsim::Config mariana =
        neuronsim::parse_config(neuronsim::builtin_config_text("mariana"), "mariana", {"gpsimd.cptc_flag=true", "memory.dram_bytes=268435456"});
    const neuronsim::Config cayman = neuronsim::parse_config(neuronsim::builtin_config_text("cayman"), "cayman", {"memory.dram_bytes=268435456"});
    Dram dram("dram");
    Router router("router");
    neuronsim::NeuronCore64 npu0("npu0", mariana), npu1("npu1", cayman);
    sc_core::sc_signal<bool> irq0("irq0"), irq1("irq1");
    Host host0("host0", Router::kNpu0, 0, mariana, cptc_gelu), host1("host1", Router::kNpu1, 128ull << 20, cayman, softmax);
    host0.bus.bind(router.from_hosts);
    host1.bus.bind(router.from_hosts);
    router.to_dram.bind(dram.socket);
    router.to_npu0.bind(npu0.mmio);
    router.to_npu1.bind(npu1.mmio);
    npu0.mem.bind(dram.socket);
    npu1.mem.bind(dram.socket);
    npu0.irq.bind(irq0);
    npu1.irq.bind(irq1);
    host0.irq.bind(irq0);
    host1.irq.bind(irq1);
    try {
        sc_core::sc_start();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    print_stats("npu0", npu0);
    print_stats("npu1", npu1);
    if (!quiet || failures) std::printf("simulated %s; %d mismatches\n", sc_core::sc_time_stamp().to_string().c_str(), failures);
    return failures == 0 ? 0 : 1;
}
