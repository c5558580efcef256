#include "stats/stats_schema.h"

#include <regex>

#include "stats/stat_records.h"

namespace neuronsim::stats {

namespace {

const char* const kIntro = R"(`neuronsim run` writes `OUT/stats.json`: one JSON object describing what was run and what it
took. Its layout is versioned by `schema_version`; a key moving or changing meaning bumps it.
Version 3 (the timing model of docs/timing-model.md): `core.dma` counts packets and
descriptors per engine (`engines.<E>.transfers` became `packets`); an engine's `busy_ps` is the
union of its instructions' [start, end] (pipelined instructions overlap), split between
mnemonics by each instruction's exclusive share; the DMA queue streams run at the Sync
engine's clock; the spread queues are `dma.<Q>`.

This page is generated from the stat records (`stats/stat_records.h`) by `neuronsim stats
schema`, and `tests/stats/stats_schema_test.cpp` fails when it is not current. The keys are
complete: the same test flattens the stats of every example trace and fails when a key appears
that no record declares, or when a record's key appears in none of them (unless marked
*optional*).

Conventions: keys are written flattened, with `.` between levels and `[<n>]` for array
elements. `<…>` stands for a key that names something: `<E>` a DMA engine index (`0` ..
`dma.engines-1`, all present), `<stream>` a DMA queue stream that ran (`dma3`, `dma3.1`,
`dma.0`), `<mnemonic>` an instruction mnemonic (`activate`, `copy`), `<cause>` a stall cause
as a key of letters, digits and `_` (`semaphore2_ge_released_by_act`, `busy_queue_dma_0`,
`data_from_act`: one per semaphore, whatever value each stall waited for; its `.cause` text gives the values' range, `semaphore 2 >= 1..64`, and instructions.csv each instruction's own, `semaphore 2 >= 1`), `<semaphore>` a
semaphore index, `<kernel>` a POOL kernel (`cptc_decode_impl<3>`). Times are integers in
picoseconds (`_ps`) unless the unit says otherwise. The engines of the generation (`act`,
`pool`, every DMA engine) are always present, with zeros when idle; DMA *queues* appear under
`core.queues` only when they ran (a core has 272 of them). `neuronsim sweep` stores the same
keys, flattened (arrays by index: `core.act.table_switches.0.from`), in its database, and each
key's unit and meaning in its `stat_keys` table.

`NeuronCore::stats_json()` (the device's public API, for virtual platforms) returns the
`core` object alone.
)";

template <size_t N>
void add(Group& g, std::string_view root, const Stat* const (&stats)[N]) {
    for (const Stat* s : stats) g.entries.push_back({root, s});
}

// The groups of the page; each adds its namespace's records (kAll) under its node.
std::vector<Group> build() {
    std::vector<Group> out;
    Group run_group{"## What was run", "", true, {}};
    add(run_group, "", run::kAll);
    out.push_back(std::move(run_group));
    Group core_group{"## The core", "", true, {}};
    add(core_group, "core", core::kAll);
    add(core_group, "core.sbuf", memory::kAll);
    add(core_group, "core.psum", memory::kAll);
    add(core_group, "core.semaphores", semaphores::kAll);
    add(core_group, "core.hazards", hazards::kAll);
    add(core_group, "core.dma", dma::kAll);
    add(core_group, "core.derived", derived::kAll);
    out.push_back(std::move(core_group));
    Group engines{"### Engines: `act`, `pool`, `dve`, `pe` and each DMA queue",
                  "`<engine>` below is `core.act`, `core.pool`, `core.dve` (when VectorE ran), `core.pe` (when TensorE ran) or `core.queues.<stream>`.",
                  true,
                  {}};
    add(engines, "<engine>", engine::kAll);
    out.push_back(std::move(engines));
    Group act_group{"### ACT only", "", true, {}};
    add(act_group, "core.act", act::kAll);
    add(act_group, "core.act.act_tables", act_tables::kAll);
    out.push_back(std::move(act_group));
    Group pool_group{"### POOL only", "", true, {}};
    add(pool_group, "core.pool", pool::kAll);
    out.push_back(std::move(pool_group));
    Group host_group{"## Host figures", "Wall-clock figures are not in `stats.json` (they vary run to run); they go to `OUT/host.json`:", false, {}};
    add(host_group, "", host::kAll);
    out.push_back(std::move(host_group));
    return out;
}

// A pattern as a regex over the sweep's flattened keys: [<n>] is ".index", <name> any text.
std::regex flat_regex(const std::string& pattern) {
    std::string re;
    for (size_t i = 0; i < pattern.size();) {
        if (pattern.compare(i, 5, "[<n>]") == 0) {
            re += "\\.[0-9]+";
            i += 5;
        } else if (pattern[i] == '<') {
            re += ".+";
            i = pattern.find('>', i) + 1;
        } else {
            if (std::string_view(".[]()*+?^$|\\{}").find(pattern[i]) != std::string_view::npos) re += '\\';
            re += pattern[i++];
        }
    }
    return std::regex(re);
}

}  // namespace

const std::vector<Group>& schema() {
    static const std::vector<Group> g = build();
    return g;
}

std::vector<Entry> stats_json_patterns() {
    static const std::string_view kEngines[] = {"core.act", "core.pool", "core.dve", "core.pe", "core.queues.<stream>"};
    std::vector<Entry> out;
    for (const Group& g : schema()) {
        if (!g.in_stats_json) continue;
        for (const Entry& e : g.entries) {
            if (e.root != "<engine>") {
                out.push_back(e);
                continue;
            }
            for (std::string_view r : kEngines) out.push_back({r, e.stat});
        }
    }
    return out;
}

const Stat* record_of_flat_key(const std::string& key) {
    struct Compiled {
        std::regex re;
        size_t literal;  // characters outside <...>: the most specific match wins
        const Stat* stat;
    };
    static const std::vector<Compiled> all = [] {
        std::vector<Compiled> c;
        for (const Entry& e : stats_json_patterns()) {
            const std::string p = e.pattern();
            size_t literal = 0;
            for (size_t i = 0; i < p.size(); ++i) {
                if (p[i] == '<') i = p.find('>', i);
                else ++literal;
            }
            c.push_back({flat_regex(p), literal, e.stat});
        }
        return c;
    }();
    // A named segment (<stream>) can hold dots, so core.queues.dma3.by_mnemonic.copy.busy_ps
    // matches core.queues.<stream>.busy_ps too: the pattern with more fixed text is meant.
    const Compiled* best = nullptr;
    for (const Compiled& c : all)
        if ((!best || c.literal > best->literal) && std::regex_match(key, c.re)) best = &c;
    return best ? best->stat : nullptr;
}

std::string schema_markdown() {
    std::string md = "# stats.json — schema version " + std::to_string(kSchemaVersion) + "\n\n" + kIntro;
    for (const Group& g : schema()) {
        md += "\n" + std::string(g.heading) + "\n\n";
        if (!g.intro.empty()) md += std::string(g.intro) + "\n\n";
        md += "| key | unit | meaning |\n|---|---|---|\n";
        for (const Entry& e : g.entries) {
            std::string meaning(e.stat->meaning);
            if (e.root == "" && e.stat == &run::schema_version) meaning = std::to_string(kSchemaVersion) + ": " + meaning;
            md += "| `" + e.pattern() + "` | " + std::string(unit_name(e.stat->unit)) + " | " + meaning + " |\n";
        }
    }
    return md;
}

}  // namespace neuronsim::stats
