#pragma once
// Checked text output at millions of records per second (instructions.csv, timeline.json).
// Appends go into a buffer with one bounds check each and never allocate; a full buffer is
// handed to a background thread that writes it while the caller fills the other one, so the
// kernel's copy overlaps the simulation. The file is an AtomicFile: it appears whole at
// commit() or not at all. Appends never throw (they run inside simulation processes): the
// first write error is kept, later output is dropped, and commit() throws it, naming the file
// and the byte offset.
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "model/io/write_file.h"

namespace neuronsim::model::io {

class TextWriter {
public:
    explicit TextWriter(const std::string& path);
    ~TextWriter();  // without commit(): nothing appears
    TextWriter(const TextWriter&) = delete;
    TextWriter& operator=(const TextWriter&) = delete;

    void put(char c) {
        if (p_ == end_) hand_off();
        *p_++ = c;
    }
    void put(const char* s, size_t n) {
        if (static_cast<size_t>(end_ - p_) < n) return put_long(s, n);
        std::memcpy(p_, s, n);
        p_ += n;
    }
    void put(const std::string& s) { put(s.data(), s.size()); }
    template <size_t N>
    void lit(const char (&s)[N]) {  // a string literal, its length known at compile time
        put(s, N - 1);
    }
    // Decimal digits of v.
    void u64(uint64_t v) {
        room(20);
        p_ = format_u64(p_, v);
    }
    // v / 10^digits with exactly `digits` (0 to 9) fraction digits (integer picoseconds as ns
    // or us): exact, where a printf of the double could round.
    void fixed(uint64_t v, int digits);

    // Writes what is buffered, waits for the writes, then moves the file into place. Throws
    // the first write error naming the file and byte offset; the file then does not appear.
    void commit();
    const std::string& path() const { return file_.path(); }

    // Writes v's decimal digits at `at` and returns the end; at most 20 characters.
    static char* format_u64(char* at, uint64_t v);

private:
    void room(size_t n) {
        if (static_cast<size_t>(end_ - p_) < n) hand_off();
    }
    void put_long(const char* s, size_t n);
    void hand_off();  // the filled buffer to the writer thread; continue in the other one
    void writer_loop();
    void stop_writer();

    static constexpr size_t kBuffer = size_t{1} << 20;
    AtomicFile file_;
    std::unique_ptr<char[]> bufs_[2];
    int cur_ = 0;
    char* p_ = nullptr;
    char* end_ = nullptr;

    std::mutex m_;
    std::condition_variable cv_;
    const char* pending_ = nullptr;  // the buffer the writer thread is writing, or null
    size_t pending_size_ = 0;
    bool stop_ = false;
    std::string error_;  // the first write error; set by the writer thread, read after join
    std::thread writer_;
};

}  // namespace neuronsim::model::io
