#include "model/io/text_writer.h"

#include "model/common/error.h"

namespace neuronsim::model::io {

TextWriter::TextWriter(const std::string& path) : file_(path) {
    bufs_[0].reset(new char[kBuffer]);  // not zeroed: only what is written is read
    bufs_[1].reset(new char[kBuffer]);
    p_ = bufs_[0].get();
    end_ = p_ + kBuffer;
    writer_ = std::thread([this] { writer_loop(); });
}

TextWriter::~TextWriter() { stop_writer(); }  // file_'s destructor removes the temporary

void TextWriter::stop_writer() {
    if (!writer_.joinable()) return;
    {
        std::lock_guard<std::mutex> l(m_);
        stop_ = true;
    }
    cv_.notify_all();
    writer_.join();
}

void TextWriter::writer_loop() {
    std::unique_lock<std::mutex> l(m_);
    for (;;) {
        cv_.wait(l, [&] { return pending_ || stop_; });
        if (!pending_) return;  // stopped with nothing left to write
        const char* data = pending_;
        const size_t size = pending_size_;
        l.unlock();
        if (error_.empty()) try {
                file_.write(data, size);
            } catch (const std::exception& e) {
                error_ = e.what();
            }
        l.lock();
        pending_ = nullptr;
        cv_.notify_all();
    }
}

void TextWriter::hand_off() {
    char* const full = bufs_[cur_].get();
    if (!writer_.joinable()) {  // after commit(): nothing more is written
        p_ = full;
        return;
    }
    {
        // The other buffer is free once the writer has finished it.
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return pending_ == nullptr; });
        if (p_ != full) {
            pending_ = full;
            pending_size_ = static_cast<size_t>(p_ - full);
        }
    }
    cv_.notify_all();
    cur_ ^= 1;
    p_ = bufs_[cur_].get();
    end_ = p_ + kBuffer;
}

void TextWriter::put_long(const char* s, size_t n) {
    while (n) {
        if (p_ == end_) hand_off();
        const size_t k = std::min(n, static_cast<size_t>(end_ - p_));
        std::memcpy(p_, s, k);
        p_ += k, s += k, n -= k;
    }
}

char* TextWriter::format_u64(char* at, uint64_t v) {
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    char tmp[20];
    char* q = tmp + sizeof tmp;
    while (v >= 100) {
        const unsigned d = static_cast<unsigned>(v % 100) * 2;
        v /= 100;
        *--q = pairs[d + 1];
        *--q = pairs[d];
    }
    if (v >= 10) {
        *--q = pairs[v * 2 + 1];
        *--q = pairs[v * 2];
    } else {
        *--q = static_cast<char>('0' + v);
    }
    const size_t n = static_cast<size_t>(tmp + sizeof tmp - q);
    std::memcpy(at, q, n);
    return at + n;
}

void TextWriter::fixed(uint64_t v, int digits) {
    static constexpr uint64_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
    room(48);
    const uint64_t unit = kPow10[digits];
    p_ = format_u64(p_, v / unit);
    if (digits) *p_++ = '.';
    uint64_t frac = v % unit;
    for (int d = digits; d > 0; --d, frac /= 10) p_[d - 1] = static_cast<char>('0' + frac % 10);
    p_ += digits;
}

void TextWriter::commit() {
    if (!writer_.joinable()) throw Error(path() + ": committed twice");
    hand_off();
    {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return pending_ == nullptr; });
    }
    stop_writer();
    if (!error_.empty()) throw Error(error_);
    file_.commit();
}

}  // namespace neuronsim::model::io
