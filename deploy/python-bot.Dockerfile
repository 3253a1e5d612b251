# The example Python bots on Debian 12 (random by default).
#   docker build -f deploy/python-bot.Dockerfile -t hoard-python-bot .
# Build stage: generate the protocol's Python classes with Debian's protoc.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-grpcio python3-protobuf protobuf-compiler protobuf-compiler-grpc \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /hoard
COPY proto proto
COPY bots/python bots/python
ENV HOARD_STUBS_DIR=/hoard/stubs
RUN python3 -c "import sys; sys.path.insert(0, 'bots/python'); import hoard_bot.stubs"

# Runtime stage: Python with gRPC, the SDK, the examples and their stubs.
FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-grpcio python3-protobuf \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /hoard
COPY --from=build /hoard/proto proto
COPY --from=build /hoard/bots/python bots/python
COPY --from=build /hoard/stubs stubs
ENV HOARD_STUBS_DIR=/hoard/stubs \
    HOARD_SERVER=server:50051
USER nobody
ENTRYPOINT ["python3", "bots/python/examples/random_bot.py"]
