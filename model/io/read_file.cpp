#include "model/io/read_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "model/common/error.h"

namespace neuronsim::model::io {

namespace {

const char* kind_of(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    int release() {
        int f = fd_;
        fd_ = -1;
        return f;
    }

private:
    int fd_;
};

// Reads exactly `size` bytes into `out`, then checks the file ends there.
void read_exactly(int fd, const std::string& path, char* out, uint64_t size) {
    uint64_t done = 0;
    while (done < size) {
        const ssize_t n = ::read(fd, out + done, size - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw Error(path + ": read error at byte offset " + std::to_string(done) + ": " + std::strerror(errno));
        }
        if (n == 0)
            throw Error(path + ": read only " + std::to_string(done) + " of its " + std::to_string(size) + " bytes (the file shrank while it was read)");
        done += static_cast<uint64_t>(n);
    }
    char extra;
    ssize_t n;
    do n = ::read(fd, &extra, 1);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        throw Error(path + ": holds more than the " + std::to_string(size) +
                    " bytes its size said when opened (the file grew while it was read, or is not a plain file)");
    if (n < 0) throw Error(path + ": read error at byte offset " + std::to_string(size) + ": " + std::strerror(errno));
}

template <typename Buffer>
Buffer read_into(const std::string& path, uint64_t max_bytes, const std::string& what) {
    const OpenedFile f = open_regular_file(path, max_bytes, what);
    Fd fd(f.fd);
    const uint64_t size = f.size;
    Buffer buf;
    try {
        buf.resize(static_cast<size_t>(size));
    } catch (const std::bad_alloc&) {
        throw Error(path + ": cannot allocate " + size_text(size) + " to read this " + what);
    } catch (const std::length_error&) {
        throw Error(path + ": cannot allocate " + size_text(size) + " to read this " + what);
    }
    read_exactly(fd.get(), path, reinterpret_cast<char*>(buf.data()), size);
    return buf;
}

}  // namespace

std::string size_text(uint64_t bytes) {
    char b[64];
    if (bytes >= (uint64_t{1} << 30))
        std::snprintf(b, sizeof b, "%.1f GiB (%llu bytes)", static_cast<double>(bytes) / (1 << 30), static_cast<unsigned long long>(bytes));
    else if (bytes >= (uint64_t{1} << 20))
        std::snprintf(b, sizeof b, "%.1f MiB (%llu bytes)", static_cast<double>(bytes) / (1 << 20), static_cast<unsigned long long>(bytes));
    else std::snprintf(b, sizeof b, "%llu bytes", static_cast<unsigned long long>(bytes));
    return b;
}

OpenedFile open_regular_file(const std::string& path, uint64_t max_bytes, const std::string& what) {
    if (path.empty()) throw Error("an empty file name was given (" + what + ")");
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the fstat below refuses it.
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        if (errno == EISDIR) throw Error(path + ": is a directory, not a regular file; refusing to read this " + what);
        throw Error(path + ": cannot open: " + std::strerror(errno));
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) throw Error(path + ": cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": is " + kind_of(st.st_mode) + ", not a regular file; refusing to read this " + what);
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    if (size > max_bytes) throw Error(path + ": is " + size_text(size) + ", over the limit of " + size_text(max_bytes) + " for this " + what);
    // Back to blocking reads for the regular file.
    const int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
    return OpenedFile{fd.release(), size};
}

FileRange::FileRange(const std::string& path, uint64_t expected_size, const std::string& what) : path_(path) {
    const OpenedFile f = open_regular_file(path, UINT64_MAX, what);
    fd_ = f.fd;
    size_ = f.size;
    if (f.size != expected_size) {
        ::close(fd_);
        throw Error(path + ": is " + size_text(f.size) + " now, " + size_text(expected_size) + " when the trace was read: it changed meanwhile");
    }
}

FileRange::~FileRange() {
    if (fd_ >= 0) ::close(fd_);
}

void FileRange::read_at(uint64_t offset, uint8_t* out, size_t n) {
    if (offset > size_ || n > size_ - offset) throw Error(path_ + ": bytes [" + std::to_string(offset) + ", +" + std::to_string(n) + ") are past its end");
    for (size_t done = 0; done < n;) {
        const ssize_t got = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
        if (got < 0) {
            if (errno == EINTR) continue;
            throw Error(path_ + ": read error at byte offset " + std::to_string(offset + done) + ": " + std::strerror(errno));
        }
        if (got == 0) throw Error(path_ + ": ended at byte offset " + std::to_string(offset + done) + " (the file shrank while it was read)");
        done += static_cast<size_t>(got);
    }
}

void read_file_range(const std::string& path, uint64_t expected_size, uint64_t offset, uint64_t n, const std::string& what,
                     const std::function<void(const uint8_t*, size_t)>& sink) {
    FileRange f(path, expected_size, what);
    if (offset > f.size() || n > f.size() - offset) throw Error(path + ": bytes [" + std::to_string(offset) + ", +" + std::to_string(n) + ") are past its end");
    std::vector<uint8_t> buf(static_cast<size_t>(std::min<uint64_t>(n, uint64_t{1} << 20)));
    for (uint64_t done = 0; done < n;) {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), n - done));
        f.read_at(offset + done, buf.data(), want);
        sink(buf.data(), want);
        done += want;
    }
}

ByteStream::ByteStream(const std::string& path, uint64_t max_bytes, const std::string& what, size_t buffer_bytes) : path_(path) {
    const OpenedFile f = open_regular_file(path, max_bytes, what);
    fd_ = f.fd;
    size_ = f.size;
    // No larger than the file (plus the byte that finds its end): a short trace, hashed or read
    // once per sweep point, does not fault in a MiB.
    buf_size_ = static_cast<size_t>(std::max<uint64_t>(1, std::min<uint64_t>(buffer_bytes, size_ + 1)));
    buf_.reset(new char[buf_size_]);
}

ByteStream::~ByteStream() {
    if (fd_ >= 0) ::close(fd_);
}

int ByteStream::refill() {
    ssize_t n;
    do n = ::read(fd_, buf_.get(), buf_size_);
    while (n < 0 && errno == EINTR);
    if (n < 0) throw Error(path_ + ": read error at byte offset " + std::to_string(consumed_) + ": " + std::strerror(errno));
    if (n == 0) {
        if (consumed_ < size_)
            throw Error(path_ + ": ended at byte offset " + std::to_string(consumed_) + " of its " + std::to_string(size_) +
                        " bytes (the file shrank while it was read)");
        pos_ = len_ = 0;
        return -1;
    }
    pos_ = 0;
    len_ = static_cast<size_t>(n);
    consumed_ += len_;
    return static_cast<unsigned char>(buf_[pos_++]);
}

ByteStream::Line ByteStream::read_line(std::string& out, size_t max, char delim) {
    out.clear();
    for (;;) {
        if (pos_ == len_) {
            if (refill() < 0) return Line::End;
            --pos_;  // refill() consumed the first byte; scan it below
        }
        const char* from = buf_.get() + pos_;
        const size_t avail = len_ - pos_, room = max - out.size();
        const size_t scan = std::min(avail, room + 1);  // one past `max`: a delimiter there still ends the line
        const char* at = static_cast<const char*>(std::memchr(from, delim, scan));
        if (at) {
            out.append(from, static_cast<size_t>(at - from));
            pos_ += static_cast<size_t>(at - from) + 1;
            return Line::Delim;
        }
        const size_t take = std::min(avail, room);
        out.append(from, take);
        pos_ += take;
        if (take < avail) return Line::TooLong;  // the scan saw the byte after `max`: not the delimiter
    }
}

size_t ByteStream::read(uint8_t* out, size_t n) {
    size_t done = 0;
    while (done < n) {
        if (pos_ == len_) {
            const int c = refill();
            if (c < 0) break;
            out[done++] = static_cast<uint8_t>(c);
            continue;
        }
        const size_t k = std::min(n - done, len_ - pos_);
        std::memcpy(out + done, buf_.get() + pos_, k);
        pos_ += k;
        done += k;
    }
    return done;
}

std::string read_file_checked(const std::string& path, uint64_t max_bytes, const std::string& what) { return read_into<std::string>(path, max_bytes, what); }

std::vector<uint8_t> read_bytes_checked(const std::string& path, uint64_t max_bytes, const std::string& what) {
    return read_into<std::vector<uint8_t>>(path, max_bytes, what);
}

}  // namespace neuronsim::model::io
