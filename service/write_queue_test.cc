#include "service/write_queue.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hoard/v1/arena.pb.h"

namespace hoard::service {
namespace {

// A stream whose client never reads: writes start and never complete.
struct StuckReactor {
  void WriteNext(const hoard::v1::MatchEvent& event, grpc::WriteOptions options) {
    ++started;
    written.push_back(event.match_id());
    buffer_hints.push_back(options.get_buffer_hint());
  }
  void Finish(const grpc::Status& status) { finished.push_back(status); }
  int started = 0;
  // Of each write started: the message, and whether gRPC was told it may
  // hold it back for those behind it.
  std::vector<std::string> written;
  std::vector<bool> buffer_hints;
  std::vector<grpc::Status> finished;
};

hoard::v1::MatchEvent EventOf(std::size_t bytes) {
  hoard::v1::MatchEvent event;
  event.set_match_id(std::string(bytes, 'm'));
  return event;
}

TEST(WriteQueueTest, ASlowReaderIsBoundInBytesNotMessages) {
  StuckReactor reactor;
  const hoard::v1::MatchEvent event = EventOf(1000);
  const std::size_t size = event.ByteSizeLong();
  WriteQueue<StuckReactor, hoard::v1::MatchEvent> queue(&reactor, 10 * size);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(queue.Push(event)) << i;
  EXPECT_FALSE(queue.Push(event));  // the eleventh would pass the bound
  EXPECT_EQ(reactor.started, 1);    // one write at a time

  // Small messages fill the same bound only when they add up to it.
  StuckReactor small_reactor;
  WriteQueue<StuckReactor, hoard::v1::MatchEvent> small(&small_reactor, 10 * size);
  const hoard::v1::MatchEvent tiny = EventOf(10);
  int pushed = 0;
  while (small.Push(tiny) && pushed < 100000) ++pushed;
  EXPECT_GT(pushed, 100);
  EXPECT_LE(static_cast<std::size_t>(pushed) * tiny.ByteSizeLong(), 10 * size);
}

TEST(WriteQueueTest, OneMessageLargerThanTheBoundStillGoesAlone) {
  StuckReactor reactor;
  WriteQueue<StuckReactor, hoard::v1::MatchEvent> queue(&reactor, 100);
  EXPECT_TRUE(queue.Push(EventOf(5000)));
  EXPECT_FALSE(queue.Push(EventOf(10)));
}

TEST(WriteQueueTest, WrittenMessagesFreeTheirBytes) {
  StuckReactor reactor;
  const hoard::v1::MatchEvent event = EventOf(1000);
  WriteQueue<StuckReactor, hoard::v1::MatchEvent> queue(&reactor, 2 * event.ByteSizeLong());
  EXPECT_TRUE(queue.Push(event));
  EXPECT_TRUE(queue.Push(event));
  EXPECT_FALSE(queue.Push(event));
  queue.OnWriteDone(true);  // the client read one
  EXPECT_TRUE(queue.Push(event));
  queue.Finish(grpc::Status::OK, /*abandon_queue=*/true);
  queue.OnWriteDone(true);
  ASSERT_EQ(reactor.finished.size(), 1u);
}

// A message with more queued behind it may wait in gRPC's buffer to go out
// with them; the last one queued never does, so nothing is left unsent.
TEST(WriteQueueTest, WritesAreHeldForThoseBehindThemAndTheLastFlushes) {
  StuckReactor reactor;
  WriteQueue<StuckReactor, hoard::v1::MatchEvent> queue(&reactor, 1 << 20);
  for (const char* id : {"a", "b", "c"}) {
    hoard::v1::MatchEvent event;
    event.set_match_id(id);
    ASSERT_TRUE(queue.Push(event));
  }
  queue.OnWriteDone(true);
  queue.OnWriteDone(true);
  EXPECT_THAT(reactor.written, testing::ElementsAre("a", "b", "c"));
  // "a" started alone (nothing behind it yet); "b" had "c" behind it.
  EXPECT_THAT(reactor.buffer_hints, testing::ElementsAre(false, true, false));
}

}  // namespace
}  // namespace hoard::service
