#pragma once
// Checked, all-or-nothing file writes. An output is written to a temporary file beside it and
// renamed over the final name only when every byte is written and the file is closed without
// error: a full disk, a file-size limit or an exception on the way leaves no half-written
// file (and an earlier file of that name as it was). Every write is checked; errors name the
// file and byte offset. A name that exists and is not a regular file (/dev/null, a FIFO) is
// written directly, never replaced.
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace neuronsim::model::io {

class AtomicFile {
public:
    explicit AtomicFile(const std::string& path);
    ~AtomicFile();  // without commit(): the temporary is removed
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t size);
    // The pieces in order, without copying them, in as few system calls as they allow: data
    // already in memory in many places (a DRAM dump's pages) goes out as it lies.
    void write_pieces(const std::vector<iovec>& pieces);
    void commit();  // flush, close, rename into place
    const std::string& path() const { return path_; }
    uint64_t written() const { return written_ + buf_.size(); }

private:
    void flush();
    void write_all(const void* data, size_t size);

    std::string path_, tmp_;
    int fd_ = -1;
    std::string buf_;
    uint64_t written_ = 0;
};

// Creates `dir` and its parents as needed; an error names the directory.
void make_directories(const std::string& dir);

void write_file_atomic(const std::string& path, const void* data, size_t size);
inline void write_file_atomic(const std::string& path, const std::string& text) { write_file_atomic(path, text.data(), text.size()); }
inline void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) { write_file_atomic(path, bytes.data(), bytes.size()); }

}  // namespace neuronsim::model::io
