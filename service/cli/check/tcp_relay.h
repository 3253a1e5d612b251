#ifndef HOARD_SERVICE_CLI_CHECK_TCP_RELAY_H_
#define HOARD_SERVICE_CLI_CHECK_TCP_RELAY_H_

// A loopback TCP relay that can cut its connections, as a network failure
// would: a client connects to port(), the relay connects on to the
// upstream port and copies bytes both ways. DropConnections() closes every
// relayed connection at once; new connections are still relayed, so a
// client that reconnects gets through.

#include <atomic>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"

namespace hoard::service {

class TcpRelay {
 public:
  // Listens on 127.0.0.1 (a free port) and relays to 127.0.0.1:upstream_port.
  static absl::StatusOr<std::unique_ptr<TcpRelay>> Start(int upstream_port);
  ~TcpRelay();

  int port() const { return port_; }
  // Closes every connection relayed so far.
  void DropConnections();
  // Connections accepted so far.
  int connections() const { return connections_.load(); }

 private:
  TcpRelay(int listen_fd, int port, int upstream_port, int wake_read, int wake_write);
  void Loop();
  void Wake(char command);

  const int listen_fd_;
  const int port_;
  const int upstream_port_;
  const int wake_read_;
  const int wake_write_;
  std::atomic<int> connections_{0};
  std::thread thread_;
};

}  // namespace hoard::service

#endif  // HOARD_SERVICE_CLI_CHECK_TCP_RELAY_H_
