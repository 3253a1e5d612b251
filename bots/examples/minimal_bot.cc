// The smallest Hoard bot: joins one seat with its token and always plays the
// first legal action. docs/protocol.md walks through it.
//
//   build/bots/minimal_bot 127.0.0.1:50051 MATCH_ID SEAT_TOKEN

#include <iostream>

#include "grpcpp/grpcpp.h"
#include "hoard/v1/arena.grpc.pb.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: minimal_bot SERVER MATCH_ID SEAT_TOKEN\n";
    return 2;
  }
  auto stub =
      hoard::v1::Arena::NewStub(grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = stub->Play(&context);

  hoard::v1::BotMessage hello;
  hello.mutable_hello()->mutable_join()->set_match_id(argv[2]);
  hello.mutable_hello()->mutable_join()->set_seat_token(argv[3]);
  stream->Write(hello);

  hoard::v1::ServerMessage message;
  while (stream->Read(&message)) {
    if (message.has_decision()) {  // answer every request with action 0
      hoard::v1::BotMessage answer;
      answer.mutable_answer()->set_match_id(message.decision().match_id());
      answer.mutable_answer()->set_request_id(message.decision().request_id());
      answer.mutable_answer()->set_legal_index(0);
      stream->Write(answer);
    } else if (message.has_event() && message.event().has_finished()) {
      std::cout << "match over\n";
      context.TryCancel();  // one match is all this bot plays
    }
  }
  grpc::Status status = stream->Finish();
  if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
    std::cerr << "minimal_bot: " << status.error_message() << "\n";
    return 1;
  }
  return 0;
}
