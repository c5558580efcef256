#include "model/io/write_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "model/common/error.h"

namespace neuronsim::model::io {

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
    if (path.empty()) throw Error("an empty output file name was given");
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory, expected an output file");
        // /dev/null, /dev/stdout, a FIFO: written directly, never replaced.
        fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd_ < 0) throw Error(path + ": cannot open for writing: " + std::strerror(errno));
        return;
    }
    for (unsigned k = 0; fd_ < 0; ++k) {
        tmp_ = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(k);
        fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd_ < 0 && (errno != EEXIST || k > 100)) {
            const int e = errno;
            tmp_.clear();
            throw Error(path + ": cannot create: " + std::strerror(e));
        }
    }
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFile::write(const void* data, size_t size) {
    if (fd_ < 0) throw Error(path_ + ": written after it was committed");
    constexpr size_t kChunk = size_t{1} << 20, kDirect = size_t{64} << 10;
    // Large writes skip the copy (a DRAM dump comes a 64 KiB page at a time).
    if (buf_.empty() && size >= kDirect) return write_all(data, size);
    buf_.append(static_cast<const char*>(data), size);
    if (buf_.size() >= kChunk) flush();
}

void AtomicFile::write_pieces(const std::vector<iovec>& pieces) {
    if (fd_ < 0) throw Error(path_ + ": written after it was committed");
    flush();  // (what was written before goes first)
    const size_t most = static_cast<size_t>(IOV_MAX);
    for (size_t i = 0; i < pieces.size();) {
        if (!pieces[i].iov_len) {  // (writev of nothing but empty pieces returns 0: not an error)
            ++i;
            continue;
        }
        const ssize_t n = ::writev(fd_, pieces.data() + i, static_cast<int>(std::min(most, pieces.size() - i)));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(path_ + ": write error at byte offset " + std::to_string(written_) + ": " + std::strerror(n < 0 ? errno : EIO));
        written_ += static_cast<uint64_t>(n);
        size_t left = static_cast<size_t>(n);
        while (i < pieces.size() && left >= pieces[i].iov_len) left -= pieces[i++].iov_len;
        if (left) {  // a piece written in part: its rest
            write_all(static_cast<const char*>(pieces[i].iov_base) + left, pieces[i].iov_len - left);
            ++i;
        }
    }
}

void AtomicFile::flush() {
    write_all(buf_.data(), buf_.size());
    buf_.clear();
}

void AtomicFile::write_all(const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(fd_, p + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(path_ + ": write error at byte offset " + std::to_string(written_ + done) + ": " + std::strerror(n < 0 ? errno : EIO));
        done += static_cast<size_t>(n);
    }
    written_ += done;
}

void AtomicFile::commit() {
    flush();
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) throw Error(path_ + ": write error when closing: " + std::strerror(errno));
    if (tmp_.empty()) return;
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) throw Error(path_ + ": cannot move the finished file into place: " + std::strerror(errno));
    tmp_.clear();
}

void make_directories(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error(dir + ": cannot create the directory: " + ec.message());
}

void write_file_atomic(const std::string& path, const void* data, size_t size) {
    AtomicFile f(path);
    f.write(data, size);
    f.commit();
}

}  // namespace neuronsim::model::io
