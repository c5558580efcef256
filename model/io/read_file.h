#pragma once
// Checked whole-file reads. Every reader of neuronsim's inputs goes through here so that each
// read states its size limit, refuses what is not a regular file (/dev/zero, a FIFO, a
// directory) before reading a byte, checks the bytes read against the file's size (a file
// cut short or growing while read is an error, never a silent truncation) and turns an
// allocation failure into an error naming the file. Messages name the file and say why.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace neuronsim::model::io {

// Size limits per use (docs: README "Input limits"). Real inputs are far below them: a
// generated profile is < 200 KiB, a set's blobs < 200 KiB, a manifest < 100 KiB.
inline constexpr uint64_t kMaxJsonFileBytes = uint64_t{64} << 20;  // profiles, manifests, act_info, FuncMaps
inline constexpr uint64_t kMaxBlobFileBytes = uint64_t{16} << 20;  // <set>_bkt.bin, <set>_ctrl.bin
inline constexpr uint64_t kMaxDataFileBytes = uint64_t{4} << 30;  // a trace's .data file= into DRAM
// Element files read whole (cptc encode: at most 128 partitions x 65535 values, 75 MiB as hex
// lines); act eval streams its element files and has no limit.
inline constexpr uint64_t kMaxElementFileBytes = uint64_t{256} << 20;

// Reads the whole of the regular file `path`, at most `max_bytes` of it; `what` names the use
// in errors ("profile", "bkt blob", ...). Throws Error("PATH: ...") otherwise.
std::string read_file_checked(const std::string& path, uint64_t max_bytes, const std::string& what);
std::vector<uint8_t> read_bytes_checked(const std::string& path, uint64_t max_bytes, const std::string& what);

// Opens `path` for reading after the same checks (regular file, at most `max_bytes`), for
// readers that stream. Returns the file descriptor and the size at open; the caller closes it.
struct OpenedFile {
    int fd = -1;
    uint64_t size = 0;
};
OpenedFile open_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what);

// Bytes [offset, offset + n) of the regular file `path`, which must still be `expected_size`
// bytes long (a file that changed since it was checked is an error), handed to `sink` in
// chunks of at most 1 MiB: memory does not grow with the file. Errors name the file and offset.
void read_file_range(const std::string& path, uint64_t expected_size, uint64_t offset, uint64_t n, const std::string& what,
                     const std::function<void(const uint8_t*, size_t)>& sink);

// The regular file `path`, which must be `expected_size` bytes long (a file that changed since
// it was checked is an error), read at given offsets straight into the caller's memory (no
// buffer of its own: a .data file goes into DRAM's pages in one copy). Errors name the file and
// the byte offset.
class FileRange {
public:
    FileRange(const std::string& path, uint64_t expected_size, const std::string& what);
    ~FileRange();
    FileRange(const FileRange&) = delete;
    FileRange& operator=(const FileRange&) = delete;
    // Bytes [offset, offset + n), all of them, into `out`.
    void read_at(uint64_t offset, uint8_t* out, size_t n);
    uint64_t size() const { return size_; }

private:
    std::string path_;
    int fd_ = -1;
    uint64_t size_ = 0;
};

// Reads a regular file front to back through a fixed buffer, for readers that stream (traces,
// element files): memory does not grow with the file. A read error, or an end before the size
// the file had when opened, is an error naming the file and byte offset.
class ByteStream {
public:
    ByteStream(const std::string& path, uint64_t max_bytes, const std::string& what, size_t buffer_bytes = 1 << 20);
    ~ByteStream();
    ByteStream(const ByteStream&) = delete;
    ByteStream& operator=(const ByteStream&) = delete;

    int get() { return pos_ < len_ ? static_cast<unsigned char>(buf_[pos_++]) : refill(); }  // -1 at the end
    size_t read(uint8_t* out, size_t n);  // up to n bytes; fewer only at the end
    // The bytes before the next `delim` into `out` (replacing it), the delimiter consumed.
    // End: the file ended (out holds what came after the last delimiter, maybe nothing).
    // TooLong: `max` bytes came without a delimiter; out holds them, the rest is unread.
    enum class Line { Delim, End, TooLong };
    Line read_line(std::string& out, size_t max, char delim = '\n');
    uint64_t offset() const { return consumed_ - (len_ - pos_); }  // of the next byte
    uint64_t size() const { return size_; }  // at open
    const std::string& path() const { return path_; }

private:
    int refill();

    std::string path_;
    int fd_ = -1;
    uint64_t size_ = 0, consumed_ = 0;
    std::unique_ptr<char[]> buf_;  // (not zeroed: a small file touches only what it fills)
    size_t buf_size_ = 0;
    size_t pos_ = 0, len_ = 0;
};

// "1.5 GiB (1610612736 bytes)" for size messages.
std::string size_text(uint64_t bytes);

}  // namespace neuronsim::model::io
