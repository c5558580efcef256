#include "model/trace/trace_digest.h"

#include <set>

#include "model/io/sha256.h"
#include "model/trace/trace_reader.h"

namespace neuronsim::model::trace {

TraceDigest trace_digest(const std::string& path) {
    TraceDigest d;
    d.trace_sha256 = io::sha256_file(path, "trace");
    TraceReader reader(path);
    std::set<std::string> seen;  // a file placed at several locations is hashed once
    while (std::optional<Record> r = reader.next())
        if (r->kind == Record::Kind::Data && !r->data.file.empty() && seen.insert(r->data.file).second)
            d.data.push_back({r->data.file, io::sha256_file(r->data.file, r->where() + ": .data file")});
    return d;
}

}  // namespace neuronsim::model::trace
