#include "service/cli/check/tcp_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "gtest/gtest.h"

namespace hoard::service {
namespace {

sockaddr_in Loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

// Echoes what each connection sends, one connection after another.
class EchoServer {
 public:
  EchoServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address = Loopback(0);
    socklen_t length = sizeof(address);
    bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    listen(fd_, 4);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] {
      for (;;) {
        const int client = accept(fd_, nullptr, nullptr);
        if (client < 0) return;
        char buffer[256];
        ssize_t got;
        while ((got = recv(client, buffer, sizeof(buffer), 0)) > 0) send(client, buffer, got, 0);
        close(client);
      }
    });
  }
  ~EchoServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const sockaddr_in address = Loopback(port);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) return -1;
  return fd;
}

std::string RoundTrip(int fd, const std::string& text) {
  send(fd, text.data(), text.size(), 0);
  std::string back(text.size(), '\0');
  std::size_t have = 0;
  while (have < back.size()) {
    const ssize_t got = recv(fd, back.data() + have, back.size() - have, 0);
    if (got <= 0) break;
    have += static_cast<std::size_t>(got);
  }
  back.resize(have);
  return back;
}

TEST(TcpRelayTest, RelaysBothWaysCutsOnDemandAndTakesNewConnections) {
  EchoServer echo;
  absl::StatusOr<std::unique_ptr<TcpRelay>> relay = TcpRelay::Start(echo.port());
  ASSERT_TRUE(relay.ok()) << relay.status();

  const int first = Connect((*relay)->port());
  ASSERT_GE(first, 0);
  EXPECT_EQ(RoundTrip(first, "hello dragon"), "hello dragon");
  EXPECT_EQ((*relay)->connections(), 1);

  (*relay)->DropConnections();
  char byte;
  EXPECT_EQ(recv(first, &byte, 1, 0), 0) << "the client sees its connection closed";
  close(first);

  const int second = Connect((*relay)->port());
  ASSERT_GE(second, 0);
  EXPECT_EQ(RoundTrip(second, "back again"), "back again");
  EXPECT_EQ((*relay)->connections(), 2);
  close(second);
}

}  // namespace
}  // namespace hoard::service
