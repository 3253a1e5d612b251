#include "service/cli/check/tcp_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"

namespace hoard::service {
namespace {

constexpr char kDrop = 'd';
constexpr char kStop = 's';

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

// Writes all of `data`, waiting for room; false when the peer has gone.
bool WriteAll(int fd, const char* data, ssize_t size) {
  while (size > 0) {
    const ssize_t written = send(fd, data, size, MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd wait{fd, POLLOUT, 0};
        poll(&wait, 1, 1000);
        continue;
      }
      return false;
    }
    data += written;
    size -= written;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TcpRelay>> TcpRelay::Start(int upstream_port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in address = Loopback(0);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 16) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string error = std::strerror(errno);
    close(fd);
    return absl::UnavailableError(absl::StrCat("cannot listen on 127.0.0.1: ", error));
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC) != 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  return std::unique_ptr<TcpRelay>(
      new TcpRelay(fd, ntohs(address.sin_port), upstream_port, wake[0], wake[1]));
}

TcpRelay::TcpRelay(int listen_fd, int port, int upstream_port, int wake_read, int wake_write)
    : listen_fd_(listen_fd),
      port_(port),
      upstream_port_(upstream_port),
      wake_read_(wake_read),
      wake_write_(wake_write) {
  thread_ = std::thread([this] { Loop(); });
}

TcpRelay::~TcpRelay() {
  Wake(kStop);
  thread_.join();
  close(listen_fd_);
  close(wake_read_);
  close(wake_write_);
}

void TcpRelay::DropConnections() { Wake(kDrop); }

void TcpRelay::Wake(char command) {
  while (write(wake_write_, &command, 1) < 0 && errno == EINTR) {
  }
}

void TcpRelay::Loop() {
  // Relayed connections as pairs of sockets: pairs[i] = {client, upstream}.
  std::vector<std::pair<int, int>> pairs;
  auto close_pair = [&](std::size_t i) {
    close(pairs[i].first);
    close(pairs[i].second);
    pairs.erase(pairs.begin() + static_cast<std::ptrdiff_t>(i));
  };
  std::vector<char> buffer(1 << 16);
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake_read_, POLLIN, 0}, {listen_fd_, POLLIN, 0}});
    for (const auto& [client, upstream] : pairs) {
      fds.push_back({client, POLLIN, 0});
      fds.push_back({upstream, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) {
      char command = 0;
      if (read(wake_read_, &command, 1) == 1) {
        while (!pairs.empty()) close_pair(pairs.size() - 1);
        if (command == kStop) return;
      }
      continue;  // the pairs polled are gone
    }
    const std::size_t polled = pairs.size();
    if (fds[1].revents & POLLIN) {
      const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client >= 0) {
        const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const sockaddr_in address = Loopback(upstream_port_);
        if (upstream >= 0 &&
            connect(upstream, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0) {
          const int one = 1;
          setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
          pairs.push_back({client, upstream});
          ++connections_;
        } else {
          if (upstream >= 0) close(upstream);
          close(client);
        }
      }
    }
    // Copy what arrived; a pair whose either end closed goes.
    for (std::size_t i = polled; i-- > 0;) {
      const pollfd& from_client = fds[2 + 2 * i];
      const pollfd& from_upstream = fds[3 + 2 * i];
      bool open = true;
      for (const auto& [source, target] :
           {std::pair{&from_client, pairs[i].second}, std::pair{&from_upstream, pairs[i].first}}) {
        if (!open || source->revents == 0) continue;
        const ssize_t got = recv(source->fd, buffer.data(), buffer.size(), 0);
        open = got > 0 ? WriteAll(target, buffer.data(), got) : (got < 0 && errno == EINTR);
      }
      if (!open) close_pair(i);
    }
  }
}

}  // namespace hoard::service
